// Tensor files of a dump, confined to its folder and read in place: see tensor_store.h.
#include "msprobe/reader/tensor_store.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "msprobe/base/error.h"
#include "msprobe/base/mapped_file.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/format/pt_reader.h"

namespace msprobe {
namespace reader {

namespace {

std::string real_path(const std::string& path, const std::string& what) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) throw FileError(what + " not found: " + path);
    throw FileError("cannot resolve " + path + ": " + std::strerror(e));
  }
  return buf;
}

std::vector<int64_t> c_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = step;
    step *= shape[i] > 0 ? shape[i] : 1;
  }
  return s;
}

}  // namespace

TensorView LoadedTensor::view() const {
  TensorView v;
  v.data = storage ? storage + (size_t)storage_offset * dtype_size(dtype) : nullptr;
  v.dtype = dtype;
  v.shape = shape;
  v.strides = strides;
  return v;
}

TensorStore::TensorStore(std::string dump_tensor_data_dir) : dir_(std::move(dump_tensor_data_dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
}

std::string TensorStore::resolve(const std::string& data_name) const {
  if (data_name.empty() || data_name == "." || data_name == ".." ||
      data_name.find('/') != std::string::npos || data_name.find('\0') != std::string::npos) {
    throw FileError("tensor file name '" + data_name + "' refused: only a plain file name inside " + dir_ +
                    " is allowed (a path could lead outside it)");
  }
  const std::string root = real_path(dir_, "tensor folder");
  const std::string path = real_path(dir_ + "/" + data_name, "tensor file");
  if (path.compare(0, root.size(), root) != 0 || path.size() <= root.size() || path[root.size()] != '/') {
    throw FileError("tensor file " + dir_ + "/" + data_name + " refused: it leads to " + path + ", outside " +
                    root);
  }
  return path;
}

LoadedTensor TensorStore::load(const std::string& data_name) const {
  const std::string path = resolve(data_name);
  LoadedTensor t;
  t.path = path;
  if (ends_with(data_name, ".pt")) {
    auto file = std::make_shared<MappedFile>(path, MappedFile::kNoFollow | MappedFile::kCopyOnWrite);
    PtTensor pt;
    try {
      pt = parse_pt(file->data(), file->size());
    } catch (const PtUnsupported& e) {
      throw PtUnsupported(path + ": not a single-tensor torch.save file this reader handles: " + e.what());
    }
    t.dtype = pt.dtype;
    t.shape = std::move(pt.shape);
    t.strides = std::move(pt.stride);
    t.storage_offset = pt.storage_offset;
    t.storage = pt.storage;
    t.storage_bytes = pt.storage_bytes;
    t.requires_grad = pt.requires_grad;
    t.keepalive = std::move(file);
    return t;
  }
  if (ends_with(data_name, ".npy")) {
    auto npy = std::make_shared<NpyFile>(path, /*copy_on_write=*/true);
    if (npy->status() != NpyFile::Status::kOk) throw FileError(path + ": " + npy->error());
    const TensorView v = npy->view();
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.strides = v.strides.empty() ? c_strides(v.shape) : v.strides;
    t.storage = static_cast<const unsigned char*>(v.data);
    t.storage_bytes = v.nbytes();
    t.keepalive = std::move(npy);
    return t;
  }
  throw FileError("The file: " + path + " is not a pt or numpy file.");  // 1.2.1's words
}

}  // namespace reader
}  // namespace msprobe
