#pragma once
// Checklist row 13, "avoid slow disk reads, keep data in RAM": a dataset of
// encoded images stored one file per sample, read from storage each time with
// the file's pages evicted from the page cache first, or held in RAM. Either
// way the same bytes are then checksummed and decoded the same way (the
// JPEG-like decode of workloads/data/preprocess.h, seeded from the file's
// header), so only where the bytes come from differs.
//
// Eviction: posix_fadvise(POSIX_FADV_DONTNEED) on each file just before it is
// read, after the files were written and synced (clean pages can be dropped,
// dirty ones cannot). Not O_DIRECT: that bypasses the page cache and readahead,
// which no DataLoader does; this keeps the normal read path and starts it cold.
// Where DONTNEED cannot evict (tmpfs, some network file systems), the read
// bandwidth recorded beside the result says so: it is then memory speed.
#include <torch/torch.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/synthetic_images.h"

namespace optbench::workloads {

// n files of `bytes` each (an 8-byte seed, then seeded filler standing in for
// the entropy-coded data) in a fresh folder under `parent`, synced; removed
// with the last reference.
class ImageFiles {
 public:
  ImageFiles(const std::string& parent, std::int64_t n, std::int64_t bytes, ImageSpec image);
  ~ImageFiles();
  ImageFiles(const ImageFiles&) = delete;
  ImageFiles& operator=(const ImageFiles&) = delete;
  std::string path(std::int64_t i) const;
  std::int64_t size() const { return n_; }
  std::int64_t bytes_per_file() const { return bytes_; }
  const ImageSpec& image() const { return image_; }
  std::uint64_t checksum(std::int64_t i) const { return sums_.at(static_cast<std::size_t>(i)); }
  const std::string& folder() const { return dir_; }

 private:
  std::string dir_;
  std::int64_t n_, bytes_;
  ImageSpec image_;
  std::vector<std::uint64_t> sums_;
};

enum class ByteSource { storage, ram };
const char* to_string(ByteSource s);

struct ReadStats {
  std::atomic<std::int64_t> bytes{0}, nanoseconds{0}, bad{0};
};

// Samples from ImageFiles: the bytes from storage (evicted first) or from RAM
// (loaded once, untimed), checksummed, then decoded and cropped as every other
// loader here. The target is the sample's index.
class FileImages : public torch::data::datasets::Dataset<FileImages> {
 public:
  FileImages(std::shared_ptr<const ImageFiles> files, ByteSource source, std::shared_ptr<ReadStats> stats);
  torch::data::Example<> get(size_t index) override;
  torch::optional<size_t> size() const override;

 private:
  std::shared_ptr<const ImageFiles> files_;
  ByteSource source_;
  std::shared_ptr<ReadStats> stats_;
  std::shared_ptr<std::vector<std::vector<std::uint8_t>>> ram_;
};

}  // namespace optbench::workloads
