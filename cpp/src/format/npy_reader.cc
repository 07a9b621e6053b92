// .npy reader: magic, version, header length (u16 for 1.0, u32 for 2.0/3.0), then a Python dict
// literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}; the data follows. Only the
// literal forms numpy writes are accepted. A file shorter than its header promises is
// kTruncated (a writer may still be at work), anything else that does not parse is kMalformed.
#include "msprobe/format/npy_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace msprobe {
namespace {

struct DescrType {
  const char* descr;
  DType dtype;
};
const DescrType kDescrs[] = {
    {"|b1", DType::kBool},      {"|u1", DType::kUInt8},       {"|i1", DType::kInt8},
    {"<i2", DType::kInt16},     {"<i4", DType::kInt32},       {"<i8", DType::kInt64},
    {"<f2", DType::kFloat16},   {"<f4", DType::kFloat32},     {"<f8", DType::kFloat64},
    {"<c8", DType::kComplex64}, {"<c16", DType::kComplex128},
};

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& s) : s_(s) {}
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool quoted(std::string& out) {
    skip_ws();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return false;
    char q = s_[i_++];
    size_t end = s_.find(q, i_);
    if (end == std::string::npos) return false;
    out = s_.substr(i_, end - i_);
    i_ = end + 1;
    return true;
  }
  bool word(const char* w) {
    skip_ws();
    size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  bool integer(int64_t& v) {
    skip_ws();
    size_t start = i_;
    v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (v > (int64_t(1) << 50)) return false;
      v = v * 10 + (s_[i_++] - '0');
    }
    return i_ > start;
  }

 private:
  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace

NpyFile::NpyFile(const std::string& path, bool copy_on_write) { parse(path, copy_on_write); }

NpyFile::~NpyFile() {
  if (map_) ::munmap(map_, map_size_);
}

int64_t NpyFile::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

void NpyFile::parse(const std::string& path, bool copy_on_write) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    error_ = std::string("cannot open: ") + std::strerror(errno);
    return;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error_ = "not a regular file";
    return;
  }
  map_size_ = (size_t)st.st_size;
  if (map_size_ > 0) {
    map_ = ::mmap(nullptr, map_size_, copy_on_write ? PROT_READ | PROT_WRITE : PROT_READ, MAP_PRIVATE, fd, 0);
    if (map_ == MAP_FAILED) {
      map_ = nullptr;
      ::close(fd);
      error_ = std::string("cannot map: ") + std::strerror(errno);
      return;
    }
  }
  ::close(fd);
  const unsigned char* p = static_cast<const unsigned char*>(map_);
  const size_t n = map_size_;
  if (n < 10) {
    status_ = Status::kTruncated;
    error_ = "truncated: " + std::to_string(n) + " bytes, shorter than an .npy preamble";
    return;
  }
  if (std::memcmp(p, "\x93NUMPY", 6) != 0) {
    error_ = "not an .npy file (bad magic)";
    return;
  }
  const int major = p[6];
  size_t header_len, pre;
  if (major == 1) {
    header_len = p[8] | (size_t)p[9] << 8;
    pre = 10;
  } else if (major == 2 || major == 3) {
    if (n < 12) {
      status_ = Status::kTruncated;
      error_ = "truncated inside the preamble";
      return;
    }
    header_len = p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
    pre = 12;
  } else {
    error_ = "unsupported .npy version " + std::to_string(major);
    return;
  }
  if (n < pre + header_len) {
    status_ = Status::kTruncated;
    error_ = "truncated inside the header";
    return;
  }
  const std::string header(reinterpret_cast<const char*>(p + pre), header_len);
  HeaderParser hp(header);
  if (!hp.eat('{')) {
    error_ = "malformed header (no dict)";
    return;
  }
  bool have_descr = false, have_order = false, have_shape = false;
  while (!hp.eat('}')) {
    std::string key;
    if (!hp.quoted(key) || !hp.eat(':')) {
      error_ = "malformed header";
      return;
    }
    if (key == "descr") {
      if (!hp.quoted(descr_)) {
        error_ = "unsupported descr (structured dtype)";
        return;
      }
      have_descr = true;
    } else if (key == "fortran_order") {
      if (hp.word("True"))
        fortran_ = true;
      else if (hp.word("False"))
        fortran_ = false;
      else {
        error_ = "malformed fortran_order";
        return;
      }
      have_order = true;
    } else if (key == "shape") {
      if (!hp.eat('(')) {
        error_ = "malformed shape";
        return;
      }
      if (!hp.eat(')')) {
        while (true) {
          int64_t d;
          if (!hp.integer(d)) {
            error_ = "malformed shape";
            return;
          }
          shape_.push_back(d);
          if (hp.eat(')')) break;
          if (!hp.eat(',')) {
            error_ = "malformed shape";
            return;
          }
          if (hp.eat(')')) break;
        }
      }
      have_shape = true;
    } else {
      error_ = "unknown header key '" + key + "'";
      return;
    }
    hp.eat(',');
  }
  if (!have_descr || !have_order || !have_shape) {
    error_ = "header lacks descr, fortran_order or shape";
    return;
  }
  bool known = false;
  for (const auto& d : kDescrs) {
    if (descr_ == d.descr) {
      dtype_ = d.dtype;
      known = true;
      break;
    }
  }
  // '=' and '<' mean the same on a little-endian host.
  if (!known && descr_.size() > 1 && descr_[0] == '=') {
    std::string alt = "<" + descr_.substr(1);
    for (const auto& d : kDescrs) {
      if (alt == d.descr) {
        dtype_ = d.dtype;
        known = true;
        break;
      }
    }
  }
  data_offset_ = pre + header_len;
  // The element count is bounded by the file size before it is multiplied out: dimensions up to
  // 2^50 each would otherwise overflow and pass the size check.
  unsigned __int128 count = 1;
  for (int64_t d : shape_) {
    count *= (unsigned __int128)d;
    if (count > (unsigned __int128)n) count = (unsigned __int128)n + 1;  // saturate
  }
  const unsigned __int128 need128 = known ? count * dtype_size(dtype_) : 0;
  const size_t need = need128 > (unsigned __int128)n ? n + 1 : (size_t)need128;
  if (known && (n - data_offset_ < need)) {
    status_ = Status::kTruncated;
    error_ = "truncated: " + std::to_string(n - data_offset_) + " of " + std::to_string(need) + " data bytes";
    return;
  }
  if (!known) {
    status_ = Status::kUnsupportedDtype;
    error_ = "unsupported dtype '" + descr_ + "'";
    if (descr_.find('O') != std::string::npos) {
      error_ +=
          " (an object array: reading it would unpickle; refused as numpy.load(allow_pickle=False) does)";
    }
    return;
  }
  status_ = Status::kOk;
}

TensorView NpyFile::view() const {
  TensorView t;
  t.data = static_cast<const char*>(map_) + data_offset_;
  t.dtype = dtype_;
  t.shape = shape_;
  if (fortran_ && shape_.size() > 1) {
    t.strides.resize(shape_.size());
    int64_t s = 1;
    for (size_t i = 0; i < shape_.size(); ++i) {
      t.strides[i] = s;
      s *= shape_[i];
    }
  }
  return t;
}

}  // namespace msprobe
