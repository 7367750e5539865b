#pragma once
// Per-sample CPU work of an image pipeline, written as plain loops so its cost
// is the same in the training thread and in a loader worker (no intra-op thread
// pool behind it, like a PyTorch DataLoader worker with one thread):
//  - decode_like: what decoding a baseline JPEG costs per pixel. 4:2:0 YCbCr
//    planes are rebuilt from 8x8 blocks of quantised DCT coefficients drawn from
//    a seeded generator (run/level pairs up to an end-of-block, like entropy
//    decoding), dequantised, inverse-DCT'd, chroma upsampled and colour converted
//    to interleaved RGB bytes.
//  - crop_flip_normalize: a random crop, an optional horizontal flip, and
//    ToTensor + Normalize (ImageNet mean and std) into float CHW.
// Everything is a function of the seed, so a sample is the same wherever it is
// produced.
#include <cstdint>
#include <vector>

namespace optbench::workloads::data {

// side must be a positive multiple of 16 (whole 4:2:0 macroblocks).
void decode_like(std::uint64_t seed, int side, std::vector<std::uint8_t>& rgb_hwc);

struct CropFlip {
  int y0 = 0, x0 = 0;
  bool flip = false;
};

// The crop window and flip a sample gets: uniform offsets, flip with p = 0.5.
CropFlip random_crop_flip(std::uint64_t seed, int side, int crop);

// out_chw holds 3 * crop * crop floats.
void crop_flip_normalize(const std::uint8_t* rgb_hwc, int side, int crop, const CropFlip& cf, float* out_chw);

// ImageNet statistics used by Normalize.
constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

}  // namespace optbench::workloads::data
