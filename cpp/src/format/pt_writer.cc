// torch.save's format for one tensor: a STORED zip archive (layout in zip_writer.h) holding
//   {name}/data.pkl                 pickle (protocol 2) of torch._utils._rebuild_tensor_v2(
//                                     persistent storage ("storage", torch.<T>Storage, "0", "cpu",
//                                     numel), storage_offset 0, size, contiguous stride,
//                                     requires_grad, collections.OrderedDict())
//   {name}/.format_version          "1"
//   {name}/.storage_alignment       "64"
//   {name}/byteorder                "little"
//   {name}/data/0                   the elements, C order
//   {name}/version                  "3\n"
//   {name}/.data/serialization_id   40 decimal digits
// in the order torch 2.x writes them, so that the file is the one torch.save would write (apart
// from the random serialization id). Only names in torch.load's weights_only allow-list are used.
#include "msprobe/format/pt_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <string>

#include "msprobe/base/error.h"
#include "msprobe/format/buffer_pool.h"
#include "msprobe/format/zip_writer.h"
#include "msprobe/stats/tensor_stats.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pt_writer writes the host's bytes and records byteorder=little"
#endif

namespace msprobe {
namespace {

const char* storage_class(DType t) {
  switch (t) {
    case DType::kBool: return "BoolStorage";
    case DType::kUInt8: return "ByteStorage";
    case DType::kInt8: return "CharStorage";
    case DType::kInt16: return "ShortStorage";
    case DType::kInt32: return "IntStorage";
    case DType::kInt64: return "LongStorage";
    case DType::kFloat16: return "HalfStorage";
    case DType::kBFloat16: return "BFloat16Storage";
    case DType::kFloat32: return "FloatStorage";
    case DType::kFloat64: return "DoubleStorage";
    case DType::kComplex64: return "ComplexFloatStorage";
    case DType::kComplex128: return "ComplexDoubleStorage";
  }
  throw InvalidInput("encode_pt: unsupported dtype");
}

// The handful of pickle opcodes (protocol 2) the program needs, emitted the way CPython's
// pickler emits them (memo entries for strings, globals and non-empty tuples).
class Pickle {
 public:
  Pickle() { out_ += "\x80\x02"; }
  void global(const char* module, const char* name) {
    out_ += 'c';
    out_ += module;
    out_ += '\n';
    out_ += name;
    out_ += '\n';
    memo();
  }
  void str(const std::string& s) {
    out_ += 'X';
    u32((uint32_t)s.size());
    out_ += s;
    memo();
  }
  void integer(int64_t v) {
    if (v >= 0 && v <= 0xff) {
      out_ += 'K';
      out_ += (char)v;
    } else if (v >= 0 && v <= 0xffff) {
      out_ += 'M';
      out_ += (char)(v & 0xff);
      out_ += (char)(v >> 8);
    } else if (v >= -0x80000000LL && v <= 0x7fffffffLL) {
      out_ += 'J';
      u32((uint32_t)(int32_t)v);
    } else {  // LONG1: minimal two's-complement little-endian bytes
      unsigned char b[9];
      int n = 0;
      uint64_t u = (uint64_t)v;
      for (int i = 0; i < 8; ++i) b[n++] = (unsigned char)(u >> (8 * i));
      if (v >= 0 && (b[7] & 0x80)) b[n++] = 0;
      while (n > 1 && ((b[n - 1] == 0x00 && !(b[n - 2] & 0x80)) || (b[n - 1] == 0xff && (b[n - 2] & 0x80)))) {
        --n;
      }
      out_ += '\x8a';
      out_ += (char)n;
      out_.append(reinterpret_cast<const char*>(b), (size_t)n);
    }
  }
  void boolean(bool v) { out_ += v ? '\x88' : '\x89'; }
  void mark() { out_ += '('; }
  void tuple_from_mark() {
    out_ += 't';
    memo();
  }
  void int_tuple(const std::vector<int64_t>& v) {
    if (v.empty()) {
      out_ += ')';  // the empty tuple is a singleton: not memoised
      return;
    }
    if (v.size() > 3) mark();
    for (int64_t x : v) integer(x);
    if (v.size() > 3) {
      out_ += 't';
    } else {
      out_ += (char)(0x84 + v.size());  // TUPLE1..TUPLE3
    }
    memo();
  }
  void empty_tuple() { out_ += ')'; }
  void binpersid() { out_ += 'Q'; }
  void reduce() {
    out_ += 'R';
    memo();
  }
  std::string finish() {
    out_ += '.';
    return std::move(out_);
  }

 private:
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_ += (char)(v >> (8 * i));
  }
  void memo() {
    if (next_memo_ < 256) {
      out_ += 'q';
      out_ += (char)next_memo_;
    } else {
      out_ += 'r';
      u32(next_memo_);
    }
    ++next_memo_;
  }
  std::string out_;
  uint32_t next_memo_ = 0;
};

std::string rebuild_program(const TensorView& t, int64_t numel, bool requires_grad) {
  // torch's contiguous strides: stride[i] = stride[i+1] * max(size[i+1], 1).
  std::vector<int64_t> strides(t.shape.size());
  int64_t s = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= std::max<int64_t>(t.shape[d], 1);
  }
  Pickle p;
  p.global("torch._utils", "_rebuild_tensor_v2");
  p.mark();
  p.mark();  // persistent id of the storage
  p.str("storage");
  p.global("torch", storage_class(t.dtype));
  p.str("0");
  p.str("cpu");
  p.integer(numel);
  p.tuple_from_mark();
  p.binpersid();
  p.integer(0);  // storage offset
  p.int_tuple(t.shape);
  p.int_tuple(strides);
  p.boolean(requires_grad);
  p.global("collections", "OrderedDict");  // backward hooks: empty
  p.empty_tuple();
  p.reduce();
  p.tuple_from_mark();
  p.reduce();
  return p.finish();
}

std::string serialization_id() {
  static std::mutex mu;
  static std::mt19937_64 gen{std::random_device{}()};
  uint64_t a, b;
  {
    std::lock_guard<std::mutex> lock(mu);
    a = gen();
    b = gen();
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%020llu%020llu", (unsigned long long)a, (unsigned long long)b);
  return std::string(buf, 40);
}

inline void copy_small(char* dst, const char* src, size_t n) {
  switch (n) {  // single elements of non-contiguous views: fixed-size copies
    case 1: *dst = *src; return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    case 16: std::memcpy(dst, src, 16); return;
    default: std::memcpy(dst, src, n);
  }
}

// Copies the elements in logical order to dst and returns their CRC-32, in one pass: the CRC is
// taken over each freshly written block while it is still in cache.
uint32_t copy_with_crc(const TensorView& t, char* dst) {
  constexpr size_t kBlock = size_t(1) << 17;
  const size_t esz = dtype_size(t.dtype);
  uint32_t crc = 0;
  size_t done = 0, crc_done = 0;
  t.for_each_run([&](const void* ptr, int64_t count) {
    const char* src = static_cast<const char*>(ptr);
    size_t bytes = (size_t)count * esz;
    while (bytes > 0) {
      const size_t n = std::min(bytes, kBlock);
      copy_small(dst + done, src, n);
      done += n;
      src += n;
      bytes -= n;
      if (done - crc_done >= kBlock) {
        crc = crc32_update(crc, dst + crc_done, done - crc_done);
        crc_done = done;
      }
    }
  });
  if (done > crc_done) crc = crc32_update(crc, dst + crc_done, done - crc_done);
  return crc;
}

}  // namespace

std::string encode_pt(const TensorView& t, const std::string& archive_name, bool requires_grad,
                      uint32_t* data_crc) {
  if (archive_name.empty() || archive_name.find('/') != std::string::npos ||
      archive_name.find('\\') != std::string::npos || archive_name.find('\0') != std::string::npos) {
    throw InvalidInput("encode_pt: archive_name must be a non-empty name without '/', '\\' or NUL, got '" +
                       archive_name + "'");
  }
  if (archive_name.size() > 1000) {
    throw InvalidInput("encode_pt: archive_name longer than 1000 bytes");
  }
  const int64_t numel = t.numel();
  const size_t nbytes = (size_t)numel * dtype_size(t.dtype);
  // Only floating and complex tensors can require grad; torch.load would reject the flag on others.
  const bool rg = requires_grad && (dtype_is_floating(t.dtype) || dtype_is_complex(t.dtype));

  const std::string prefix = archive_name + "/";
  const std::string small[][2] = {
      {"data.pkl", rebuild_program(t, numel, rg)},
      {".format_version", "1"},
      {".storage_alignment", "64"},
      {"byteorder", "little"},
      {"data/0", ""},  // the tensor
      {"version", "3\n"},
      {".data/serialization_id", serialization_id()},
  };
  constexpr size_t kData = 4;
  StoredZipWriter zip;
  for (size_t i = 0; i < 7; ++i) {
    zip.add_entry(prefix + small[i][0], i == kData ? (uint64_t)nbytes : small[i][1].size());
  }
  const uint64_t total = zip.total_size();
  if (total > (uint64_t)std::string().max_size()) {
    throw FileError("encode_pt: " + std::to_string(total) + " bytes do not fit in memory");
  }
  std::string out = take_output_buffer((size_t)total);
  char* base = &out[0];
  for (size_t i = 0; i < 7; ++i) {
    char* dst = base + zip.data_offset(i);
    if (i == kData) {
      const uint32_t crc = copy_with_crc(t, dst);
      zip.set_crc(i, crc);
      if (data_crc) *data_crc = crc;
    } else {
      const std::string& s = small[i][1];
      std::memcpy(dst, s.data(), s.size());
      zip.set_crc(i, crc32_update(0, s.data(), s.size()));
    }
  }
  zip.write_structure(base);
  return out;
}

}  // namespace msprobe
