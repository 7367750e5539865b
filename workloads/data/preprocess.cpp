#include "workloads/data/preprocess.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace optbench::workloads::data {
namespace {

// splitmix64: a fast, well-mixed stream per sample.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

constexpr std::array<int, 64> kZigzag = {0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
                                         12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
                                         35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
                                         58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

// JPEG Annex K tables at quality 75 (the quality-50 tables halved).
constexpr std::array<int, 64> kLumaQ50 = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                                          14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                                          18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                                          49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
constexpr std::array<int, 64> kChromaQ50 = {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
                                            24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
                                            99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
                                            99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

// The 8-point inverse DCT as a matrix: block = M * F * M^T.
struct IdctMatrix {
  float m[8][8];
  IdctMatrix() {
    const double pi = std::acos(-1.0);
    for (int x = 0; x < 8; ++x)
      for (int u = 0; u < 8; ++u)
        m[x][u] = static_cast<float>(0.5 * (u == 0 ? std::sqrt(0.5) : 1.0) * std::cos((2 * x + 1) * u * pi / 16));
  }
};
const IdctMatrix& idct_matrix() {
  static const IdctMatrix m;
  return m;
}

std::uint8_t clamp_byte(float v) { return static_cast<std::uint8_t>(std::clamp(v + 0.5f, 0.0f, 255.0f)); }

// One plane of w x h pixels (multiples of 8), block by block, as a baseline JPEG
// decoder does after Huffman decoding: coefficients, dequantise, IDCT, level shift.
void decode_plane(Rng& rng, const std::array<int, 64>& q50, int w, int h, std::uint8_t* out) {
  const auto& M = idct_matrix().m;
  float coef[64], tmp[64];
  int dc = 0;
  for (int by = 0; by < h; by += 8) {
    for (int bx = 0; bx < w; bx += 8) {
      std::fill(std::begin(coef), std::end(coef), 0.0f);
      // DC is coded as a difference from the previous block's.
      dc = std::clamp(dc + rng.below(33) - 16, -120, 120);
      coef[0] = static_cast<float>(dc * std::max(1, q50[0] / 2));
      // AC: (run, level) pairs in zigzag order until an end-of-block.
      for (int k = 1; k < 64;) {
        const std::uint64_t r = rng.next();
        if ((r & 7) == 0) break;  // end of block
        k += static_cast<int>((r >> 3) & 3);
        if (k >= 64) break;
        const int mag = 1 + static_cast<int>((r >> 5) & 3) * static_cast<int>((r >> 7) & 1);
        const int level = ((r >> 8) & 1) ? mag : -mag;
        const int pos = kZigzag[static_cast<std::size_t>(k)];
        coef[pos] = static_cast<float>(level * std::max(1, q50[static_cast<std::size_t>(pos)] / 2));
        ++k;
      }
      // tmp = M * coef (columns), then block = tmp * M^T (rows).
      for (int x = 0; x < 8; ++x)
        for (int v = 0; v < 8; ++v) {
          float s = 0;
          for (int u = 0; u < 8; ++u) s += M[x][u] * coef[u * 8 + v];
          tmp[x * 8 + v] = s;
        }
      for (int x = 0; x < 8; ++x) {
        std::uint8_t* row = out + static_cast<std::size_t>(by + x) * static_cast<std::size_t>(w) + bx;
        for (int y = 0; y < 8; ++y) {
          float s = 0;
          for (int v = 0; v < 8; ++v) s += tmp[x * 8 + v] * M[y][v];
          row[y] = clamp_byte(s + 128.0f);
        }
      }
    }
  }
}

}  // namespace

void decode_like(std::uint64_t seed, int side, std::vector<std::uint8_t>& rgb_hwc) {
  if (side <= 0 || side % 16 != 0) throw std::invalid_argument("decode_like: side must be a positive multiple of 16");
  Rng rng{seed};
  const int c = side / 2;
  const auto n = static_cast<std::size_t>(side) * static_cast<std::size_t>(side);
  const auto nc = static_cast<std::size_t>(c) * static_cast<std::size_t>(c);
  // Thread-local scratch: a worker decodes many images; only the output is the caller's.
  thread_local std::vector<std::uint8_t> y, cb, cr;
  y.resize(n);
  cb.resize(nc);
  cr.resize(nc);
  decode_plane(rng, kLumaQ50, side, side, y.data());
  decode_plane(rng, kChromaQ50, c, c, cb.data());
  decode_plane(rng, kChromaQ50, c, c, cr.data());
  rgb_hwc.resize(3 * n);
  for (int i = 0; i < side; ++i) {
    const std::uint8_t* yr = y.data() + static_cast<std::size_t>(i) * side;
    const std::uint8_t* cbr = cb.data() + static_cast<std::size_t>(i / 2) * c;
    const std::uint8_t* crr = cr.data() + static_cast<std::size_t>(i / 2) * c;
    std::uint8_t* o = rgb_hwc.data() + static_cast<std::size_t>(i) * side * 3;
    for (int j = 0; j < side; ++j) {
      const float Y = yr[j], Cb = static_cast<float>(cbr[j / 2]) - 128.0f, Cr = static_cast<float>(crr[j / 2]) - 128.0f;
      o[3 * j + 0] = clamp_byte(Y + 1.402f * Cr);
      o[3 * j + 1] = clamp_byte(Y - 0.344136f * Cb - 0.714136f * Cr);
      o[3 * j + 2] = clamp_byte(Y + 1.772f * Cb);
    }
  }
}

CropFlip random_crop_flip(std::uint64_t seed, int side, int crop) {
  if (crop <= 0 || crop > side) throw std::invalid_argument("random_crop_flip: crop must lie in (0, side]");
  Rng rng{seed ^ 0xC0FFEEull};
  CropFlip cf;
  cf.y0 = rng.below(side - crop + 1);
  cf.x0 = rng.below(side - crop + 1);
  cf.flip = (rng.next() & 1) != 0;
  return cf;
}

void crop_flip_normalize(const std::uint8_t* rgb_hwc, int side, int crop, const CropFlip& cf, float* out_chw) {
  const auto plane = static_cast<std::size_t>(crop) * static_cast<std::size_t>(crop);
  float scale[3], shift[3];
  for (int ch = 0; ch < 3; ++ch) {  // (v / 255 - mean) / std = v * scale + shift
    scale[ch] = 1.0f / (255.0f * kStd[ch]);
    shift[ch] = -kMean[ch] / kStd[ch];
  }
  for (int i = 0; i < crop; ++i) {
    const std::uint8_t* src = rgb_hwc + (static_cast<std::size_t>(cf.y0 + i) * side + cf.x0) * 3;
    for (int ch = 0; ch < 3; ++ch) {
      float* dst = out_chw + ch * plane + static_cast<std::size_t>(i) * crop;
      for (int j = 0; j < crop; ++j) {
        const int sj = cf.flip ? crop - 1 - j : j;
        dst[j] = static_cast<float>(src[3 * sj + ch]) * scale[ch] + shift[ch];
      }
    }
  }
}

}  // namespace optbench::workloads::data
