// Statistics computed outside the core -- on an accelerator, by the framework's own reductions --
// handed over as a few numbers per tensor and turned into what compute_stats() would report for
// the same values (JSON types, NaN rules, Max/Min_except_inf_nan, float32 rounding), so that a
// device tensor's dump.json record looks like a host tensor's.
//
// The numbers of one tensor, all of type external_stats_number_dtype(dtype), in this order:
//   empty tensor:        none
//   0-dim tensor:        the value (complex: |z|; bool: 0 or 1)
//   bool tensor:         any, all (0 or 1)
//   any other tensor:    max, min, mean, norm over the values (complex: over |z|), as the
//                        framework's reductions give them (NaN propagates; a NaN norm means a
//                        NaN input, since squares cannot cancel)
//                        [, finite_max, finite_min, non_nan_max, non_nan_min] -- the extremes
//                        over the finite values (-inf / +inf when there is none) and over the
//                        non-NaN values (likewise); only needed when max or min is not finite.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "msprobe/dump/tensor_record.h"
#include "msprobe/stats/tensor_stats.h"
#include "msprobe/tensor/dtype.h"

namespace msprobe {

struct ExternalExtremes {
  double finite_max, finite_min;    // over finite values; -inf / +inf when there is none
  double non_nan_max, non_nan_min;  // over non-NaN values; -inf / +inf when there is none
};

struct ExternalStats {
  double max = 0.0, min = 0.0, mean = 0.0, norm = 0.0;  // see the layout above
  std::optional<ExternalExtremes> extremes;
};

// float64 for float64, complex128, int32 and int64 tensors (float32 cannot hold their values),
// float32 for the others.
DType external_stats_number_dtype(DType dtype);

// How many numbers the layout above has for such a tensor (with_extremes: the four extremes
// included, for tensors that have them).
size_t external_stats_count(DType dtype, const std::vector<int64_t>& shape, bool with_extremes);

// Reads the numbers (native byte order). Throws InvalidInput when `nbytes` fits no layout.
ExternalStats decode_external_stats(DType dtype, const std::vector<int64_t>& shape, const void* data,
                                    size_t nbytes);

// True when the record needs the extremes (Max or Min is inf/NaN) and they are missing: the
// caller should compute them and decode again.
bool external_stats_need_extremes(DType dtype, const std::vector<int64_t>& shape, const ExternalStats& e);

// True when float64 / complex128 values are so large or small (beyond 1e+-150) that the sums of
// squares a reduction forms overflow or underflow: compute_stats() then sums the values divided
// by the largest magnitude, and so should the caller, with external_stats_scale(), handing the
// rescaled mean and norm to set_rescaled_moments().
bool external_stats_need_rescale(DType dtype, const std::vector<int64_t>& shape, const ExternalStats& e);
double external_stats_scale(const ExternalStats& e);
inline void set_rescaled_moments(ExternalStats& e, double mean, double norm) {
  e.mean = mean;
  e.norm = norm;
}

// compute_stats()'s result for these numbers (without checksum). When Max or Min is inf/NaN and
// the extremes are missing, Max/Min_except_inf_nan are left out.
TensorStats tensor_stats_from_external(DType dtype, const std::vector<int64_t>& shape,
                                       const ExternalStats& e);

// The dump.json tensor object for statistics computed elsewhere.
void write_external_tensor_record(JsonWriter& w, DType dtype, const std::vector<int64_t>& shape,
                                  const ExternalStats& e, bool requires_grad, const std::string& data_name,
                                  const TensorRecordOptions& opt);

}  // namespace msprobe
