// Tensor files of a dump (see tensor_source.h).
// TODO(reader): switch to reader::TensorStore (memory-mapped .pt) once the reader branch has it.
#include "tensor_source.h"

#include <sys/stat.h>

#include "msprobe/base/error.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/reader/tensor_store.h"

namespace msprobe {
namespace compare {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

TensorData load_dump_tensor(const std::string& dir, const std::string& file_name) {
  if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "." ||
      file_name == "..")
    throw FileError(file_name + ": not a file name inside " + dir);
  const std::string path = dir + "/" + file_name;
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw FileError(path + ": missing or not a regular file");
  TensorData out;
  if (ends_with(file_name, ".npy")) {
    auto npy = std::make_shared<NpyFile>(path);
    if (npy->status() != NpyFile::Status::kOk) throw FileError(path + ": " + npy->error());
    out.view = npy->view();
    out.keepalive = npy;
    return out;
  }
  try {
    // The reader's mapped .pt loader (the runut .pt reader moved to format/ on branch reader).
    reader::LoadedTensor t = reader::TensorStore(dir).load(file_name);
    out.view = t.view();
    out.keepalive = t.keepalive;
    return out;
  } catch (const std::exception& e) {
    throw FileError(path + ": " + e.what());
  }
}

}  // namespace compare
}  // namespace msprobe
