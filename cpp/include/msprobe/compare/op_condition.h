// How much an op amplifies a relative error of its inputs by mathematics alone (its condition
// number, estimated from the dumped statistics): x^3 triples it, exp(x) multiplies it by |x|, a
// sum that cancels multiplies it by how much cancels. First divergence sets a call's
// amplification against this before it calls the call a suspect (divergence.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {
namespace compare {

// The statistics of one row of the NPU side (NaN where unknown).
struct RowStats {
  bool tensor = false;  // a tensor (else a scalar argument: max = min = mean = its value)
  int64_t numel = 1, last_dim = 1;
  double max = 0, min = 0, mean = 0, norm = 0;
  double rms() const;      // root mean square (from the norm), NaN when unknown
  double abs_max() const;  // max(|max|, |min|)
};

struct OpCondition {
  double factor = 1;        // >= 1
  std::string explanation;  // "x^3", "exp of values up to 12", "" when 1
};

// The condition of entry `entry` ("Torch.pow.1.forward", "Module.ln.LayerNorm.forward.0") given
// its input rows (positional first, in dump order) and output rows.
OpCondition op_condition(const std::string& entry, const std::vector<RowStats>& inputs,
                         const std::vector<RowStats>& outputs);

}  // namespace compare
}  // namespace msprobe
