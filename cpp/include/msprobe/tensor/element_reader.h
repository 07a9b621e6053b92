// Reading a tensor view block by block in logical (row-major) order, converted to a storage type
// (float or double; fp16 and bf16 widened exactly, complex read as its real part, as numpy's
// astype(float) does). Shared by the run_ut metrics and the compare metrics.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "msprobe/tensor/dtype.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

template <typename Out>
inline Out load_elem(const char* p, DType t) {
  switch (t) {
    case DType::kBool: return (Out)(*(const uint8_t*)p != 0);
    case DType::kUInt8: return (Out)(*(const uint8_t*)p);
    case DType::kInt8: return (Out)(*(const int8_t*)p);
    case DType::kInt16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return (Out)v;
    }
    case DType::kInt32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return (Out)v;
    }
    case DType::kInt64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return (Out)v;
    }
    case DType::kFloat16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return (Out)half_to_float(v);
    }
    case DType::kBFloat16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return (Out)bf16_to_float(v);
    }
    case DType::kFloat32: {
      float v;
      std::memcpy(&v, p, 4);
      return (Out)v;
    }
    case DType::kFloat64: {
      double v;
      std::memcpy(&v, p, 8);
      return (Out)v;
    }
    case DType::kComplex64: {
      float v;
      std::memcpy(&v, p, 4);
      return (Out)v;
    }
    case DType::kComplex128: {
      double v;
      std::memcpy(&v, p, 8);
      return (Out)v;
    }
  }
  return (Out)0;
}

template <typename Out>
void convert_run(const char* src, DType t, int64_t n, Out* dst) {
  switch (t) {
    case DType::kFloat32: {
      const float* s = reinterpret_cast<const float*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = (Out)s[i];
      return;
    }
    case DType::kFloat64: {
      const double* s = reinterpret_cast<const double*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = (Out)s[i];
      return;
    }
    case DType::kFloat16: {
      const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
      if constexpr (std::is_same<Out, float>::value) return halves_to_floats(s, n, dst);
      for (int64_t i = 0; i < n; ++i) dst[i] = (Out)half_to_float(s[i]);
      return;
    }
    case DType::kBFloat16: {
      const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
      if constexpr (std::is_same<Out, float>::value) return bf16s_to_floats(s, n, dst);
      for (int64_t i = 0; i < n; ++i) dst[i] = (Out)bf16_to_float(s[i]);
      return;
    }
    default: {
      const size_t esz = dtype_size(t);
      for (int64_t i = 0; i < n; ++i) dst[i] = load_elem<Out>(src + i * esz, t);
    }
  }
}

// Pull-style reader of a TensorView in row-major logical order (any strides).
class ElementReader {
 public:
  explicit ElementReader(const TensorView& v) : v_(v), esz_(dtype_size(v.dtype)) {
    contiguous_ = v.is_contiguous();
    base_ = static_cast<const char*>(v.data);
    if (!contiguous_) idx_.assign(v.shape.size(), 0);
  }
  // Reads the next n elements into dst, converted to Out.
  template <typename Out>
  void read(int64_t n, Out* dst) {
    if (contiguous_) {
      convert_run(base_ + pos_ * (int64_t)esz_, v_.dtype, n, dst);
      pos_ += n;
      return;
    }
    const size_t nd = v_.shape.size();
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (size_t d = 0; d < nd; ++d) off += idx_[d] * v_.strides[d];
      dst[i] = load_elem<Out>(base_ + off * (int64_t)esz_, v_.dtype);
      for (size_t d = nd; d-- > 0;) {
        if (++idx_[d] < v_.shape[d]) break;
        idx_[d] = 0;
      }
    }
  }

 private:
  const TensorView& v_;
  size_t esz_;
  bool contiguous_ = true;
  const char* base_ = nullptr;
  int64_t pos_ = 0;
  std::vector<int64_t> idx_;
};

}  // namespace msprobe
