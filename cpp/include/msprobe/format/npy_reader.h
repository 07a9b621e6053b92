// Reader of NumPy .npy files (format 1.0, 2.0 and 3.0) for the dtypes the core knows, without
// pickle: object arrays and structured dtypes are refused. The file is mapped, not copied.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

class NpyFile {
 public:
  enum class Status { kOk, kTruncated, kMalformed, kUnsupportedDtype };

  // Never throws for the file's contents: status() and error() say what is wrong.
  // copy_on_write maps private writable pages (see MappedFile::kCopyOnWrite).
  explicit NpyFile(const std::string& path, bool copy_on_write = false);
  ~NpyFile();
  NpyFile(const NpyFile&) = delete;
  NpyFile& operator=(const NpyFile&) = delete;

  Status status() const { return status_; }
  const std::string& error() const { return error_; }  // one line, without the path
  const std::string& descr() const { return descr_; }  // "<f4", "|b1", ...
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const;
  // The data as a view (valid while this object lives); only when status() is kOk.
  TensorView view() const;

 private:
  void parse(const std::string& path, bool copy_on_write);
  Status status_ = Status::kMalformed;
  std::string error_, descr_;
  std::vector<int64_t> shape_;
  bool fortran_ = false;
  DType dtype_ = DType::kFloat32;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  size_t data_offset_ = 0;
};

}  // namespace msprobe
