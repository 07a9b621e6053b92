// .npy format 1.0, byte for byte what numpy.save writes: magic "\x93NUMPY", version 1.0, u16
// header length, then the repr of {'descr', 'fortran_order', 'shape'} followed by the spaces
// numpy reserves for growing the first axis (21 digits in all), padded with spaces and a final
// newline so that the data starts on a 64-byte boundary.
#include "msprobe/format/npy_writer.h"

#include <cstring>
#include <string>

#include "msprobe/base/error.h"
#include "msprobe/format/buffer_pool.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy_writer writes the host's bytes with '<' descriptors"
#endif

namespace msprobe {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kGrowthAxisDigits = 21;

const char* npy_descr(DType t) {
  switch (t) {
    case DType::kBool: return "|b1";
    case DType::kUInt8: return "|u1";
    case DType::kInt8: return "|i1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kFloat16: return "<f2";
    case DType::kBFloat16: return "<f4";  // written as float32
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
    case DType::kComplex64: return "<c8";
    case DType::kComplex128: return "<c16";
  }
  throw InvalidInput("encode_npy: unsupported dtype");
}

// Python's repr of a tuple of ints: "()", "(3,)", "(2, 3)".
std::string shape_repr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ',';
  s += ')';
  return s;
}

}  // namespace

std::string npy_header(const TensorView& t) {
  std::string dict = "{'descr': '";
  dict += npy_descr(t.dtype);
  dict += "', 'fortran_order': False, 'shape': ";
  dict += shape_repr(t.shape);
  dict += ", }";
  if (!t.shape.empty()) {
    const size_t digits = std::to_string(t.shape[0]).size();
    if (digits < kGrowthAxisDigits) dict.append(kGrowthAxisDigits - digits, ' ');
  }
  const size_t prefix = 6 + 2 + 2;  // magic, version, header length
  const size_t hlen = dict.size() + 1;
  const size_t pad = kAlign - (prefix + hlen) % kAlign;  // 1..64, as numpy computes it
  const size_t header_len = hlen + pad;
  if (header_len > 0xFFFF) {
    throw InvalidInput("encode_npy: shape " + shape_repr(t.shape) + " needs a header over 64 KiB");
  }
  std::string h("\x93NUMPY\x01\x00", 8);
  h += (char)(header_len & 0xff);
  h += (char)(header_len >> 8);
  h += dict;
  h.append(pad, ' ');
  h += '\n';
  return h;
}

std::string encode_npy(const TensorView& t) {
  const std::string header = npy_header(t);
  const int64_t numel = t.numel();
  const size_t out_esz = t.dtype == DType::kBFloat16 ? 4 : dtype_size(t.dtype);
  std::string out = take_output_buffer(header.size() + (size_t)numel * out_esz);
  std::memcpy(&out[0], header.data(), header.size());
  char* dst = &out[0] + header.size();
  if (t.dtype == DType::kBFloat16) {
    float* f = reinterpret_cast<float*>(dst);
    t.for_each_run([&](const void* ptr, int64_t count) {
      const char* src = static_cast<const char*>(ptr);
      for (int64_t i = 0; i < count; ++i) {
        uint16_t b;
        std::memcpy(&b, src + 2 * i, 2);
        float v = bf16_to_float(b);
        std::memcpy(f++, &v, 4);
      }
    });
  } else if (numel > 0) {
    t.copy_contiguous(dst);
  }
  return out;
}

}  // namespace msprobe
