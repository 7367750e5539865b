#include "workloads/data/file_images.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "workloads/data/preprocess.h"

namespace optbench::workloads {
namespace {

std::uint64_t checksum_of(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: any changed byte changes it
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::uint64_t seed_of(std::int64_t i) { return 0x1000 + static_cast<std::uint64_t>(i); }

}  // namespace

const char* to_string(ByteSource s) { return s == ByteSource::storage ? "storage" : "ram"; }

ImageFiles::ImageFiles(const std::string& parent, std::int64_t n, std::int64_t bytes, ImageSpec image)
    : n_(n), bytes_(std::max<std::int64_t>(bytes, 8)), image_(image) {
  std::string tmpl = parent + "/optbench-images-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a folder under " + parent);
  dir_ = tmpl;
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(bytes_));
  for (std::int64_t i = 0; i < n_; ++i) {
    const std::uint64_t seed = seed_of(i);
    std::memcpy(buf.data(), &seed, 8);
    std::mt19937_64 gen(seed);
    for (std::size_t k = 8; k < buf.size(); ++k) buf[k] = static_cast<std::uint8_t>(gen());
    sums_.push_back(checksum_of(buf.data(), buf.size()));
    const int fd = ::open(path(i).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::write(fd, buf.data(), buf.size()) != static_cast<ssize_t>(buf.size())) {
      if (fd >= 0) ::close(fd);
      throw std::runtime_error("cannot write " + path(i));
    }
    ::close(fd);
  }
  // Written back, so that eviction can drop the pages (dirty ones stay): the
  // file system holding them, not every one.
  const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd < 0 || ::syncfs(dfd) != 0) ::sync();
  if (dfd >= 0) ::close(dfd);
}

ImageFiles::~ImageFiles() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string ImageFiles::path(std::int64_t i) const { return dir_ + "/" + std::to_string(i) + ".img"; }

FileImages::FileImages(std::shared_ptr<const ImageFiles> files, ByteSource source, std::shared_ptr<ReadStats> stats)
    : files_(std::move(files)), source_(source), stats_(std::move(stats)) {
  if (source_ != ByteSource::ram) return;
  ram_ = std::make_shared<std::vector<std::vector<std::uint8_t>>>();
  for (std::int64_t i = 0; i < files_->size(); ++i) {
    std::vector<std::uint8_t> b(static_cast<std::size_t>(files_->bytes_per_file()));
    const int fd = ::open(files_->path(i).c_str(), O_RDONLY);
    const bool ok = fd >= 0 && ::read(fd, b.data(), b.size()) == static_cast<ssize_t>(b.size());
    if (fd >= 0) ::close(fd);
    if (!ok) throw std::runtime_error("cannot read " + files_->path(i));
    ram_->push_back(std::move(b));
  }
}

torch::optional<size_t> FileImages::size() const { return static_cast<size_t>(files_->size()); }

torch::data::Example<> FileImages::get(size_t index) {
  thread_local std::vector<std::uint8_t> bytes;
  const auto i = static_cast<std::int64_t>(index);
  const std::size_t n = static_cast<std::size_t>(files_->bytes_per_file());
  bytes.resize(n);
  const auto t0 = std::chrono::steady_clock::now();
  if (source_ == ByteSource::ram) {
    std::memcpy(bytes.data(), (*ram_)[index].data(), n);  // what a read from the page cache costs at least
  } else {
    const int fd = ::open(files_->path(i).c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + files_->path(i));
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // start cold: the read goes to storage
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::read(fd, bytes.data() + got, n - got);
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    ::close(fd);
    if (got != n) throw std::runtime_error("short read of " + files_->path(i));
  }
  stats_->nanoseconds +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  stats_->bytes += static_cast<std::int64_t>(n);
  if (checksum_of(bytes.data(), n) != files_->checksum(i)) ++stats_->bad;
  std::uint64_t seed = 0;
  std::memcpy(&seed, bytes.data(), 8);
  // Decoded as every loader here decodes (preprocess.h), from the file's seed.
  const ImageSpec& im = files_->image();
  thread_local std::vector<std::uint8_t> rgb;
  const int side = static_cast<int>(im.size), crop = static_cast<int>(im.crop);
  auto x = torch::empty({3, im.crop, im.crop}, torch::kFloat);
  data::decode_like(seed, side, rgb);
  data::crop_flip_normalize(rgb.data(), side, crop, data::random_crop_flip(seed, side, crop), x.data_ptr<float>());
  return {x, torch::tensor(i, torch::kLong)};
}

}  // namespace optbench::workloads
