// One-pass tensor statistics with msprobe 1.2.1 semantics (reference data-dump §7.1):
// Max/Min/Mean/Norm, Max_except_inf_nan/Min_except_inf_nan, optional CRC-32 checksum.
// Accumulates in double. Releases nothing; callers release the GIL around it.
#pragma once
#include <cstdint>
#include <optional>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

// A statistic as it appears in dump.json: null, true/false, an int or a float.
struct StatValue {
  enum class Kind : uint8_t { kNull, kBool, kInt, kFloat } kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  static StatValue null() { return {}; }
  static StatValue boolean(bool v) {
    StatValue s;
    s.kind = Kind::kBool;
    s.b = v;
    return s;
  }
  static StatValue integer(int64_t v) {
    StatValue s;
    s.kind = Kind::kInt;
    s.i = v;
    return s;
  }
  static StatValue floating(double v) {
    StatValue s;
    s.kind = Kind::kFloat;
    s.f = v;
    return s;
  }
};

struct TensorStats {
  StatValue max, min, mean, norm;
  // Set only when max or min is inf/NaN: extremes over the finite values (see reference §7.1).
  std::optional<double> max_except_inf_nan, min_except_inf_nan;
  // CRC-32 (zlib polynomial) over the bytes, bf16 converted to fp32 first; set when requested.
  std::optional<uint32_t> crc32;
  // Complex tensors only: the L2 norm of |z|. 1.2.1 reports it as Norm for MindSpore, while its
  // PyTorch Norm is null for complex, so the record writer chooses.
  std::optional<double> complex_abs_norm;
};

// want_crc: also compute the checksum in the same pass.
TensorStats compute_stats(const TensorView& t, bool want_crc);

// The statistics of a floating or complex tensor from its reductions, shared by compute_stats and
// statistics reduced elsewhere (an accelerator). Max, Min, Mean and Norm as the dump writes them:
// mean and norm rounded to float32 unless `dtype` is float64 or complex128; a complex tensor's
// norm goes to complex_abs_norm.
void set_float_stats(TensorStats& out, DType dtype, double max, double min, double mean, double norm);
// Max_except_inf_nan / Min_except_inf_nan where `max` / `min` (as reported) is inf or NaN: over
// the finite values (finite_*, not finite when there are none); without any, over the non-NaN
// values (non_nan_min > non_nan_max when there are none); else NaN.
void set_except_inf_nan(TensorStats& out, double max, double min, double finite_max, double finite_min,
                        double non_nan_max, double non_nan_min);

// zlib-compatible CRC-32 of a byte range, continuing from `crc` (0 to start).
uint32_t crc32_update(uint32_t crc, const void* data, size_t len);

}  // namespace msprobe
