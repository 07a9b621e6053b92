#include "msprobe/compare/op_condition.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "msprobe/base/strings.h"

namespace msprobe {
namespace compare {
namespace {

// An ill-conditioned estimate is capped: beyond it an op is judged as if this were its factor.
constexpr double kMaxFactor = 1e4;

// The API's own name: "pow" of "Torch.pow.1.forward", "__pow__" of "Tensor.__pow__.0.forward",
// "layernorm" of "Module.ln.LayerNorm.forward.0" (the module's class), lower case.
std::string op_of(const std::string& entry) {
  const std::vector<std::string_view> parts = split(entry, '.');
  if (parts.size() < 3) return "";
  if (parts[0] == "Module" || parts[0] == "Cell") {
    for (size_t i = parts.size(); i-- > 1;)
      if (parts[i] == "forward" || parts[i] == "backward") return to_lower(std::string(parts[i - 1]));
    return "";
  }
  return to_lower(std::string(parts[1]));
}

bool one_of(const std::string& op, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (op == n) return true;
  return false;
}

bool finite(double v) { return std::isfinite(v); }

OpCondition make(double factor, std::string why) {
  OpCondition c;
  if (!finite(factor) || factor <= 1) return c;
  c.factor = std::min(factor, kMaxFactor);
  c.explanation = std::move(why);
  return c;
}

// Cancellation in a sum of terms: the magnitudes added over the magnitude left.
OpCondition cancellation(double terms, double result, const char* what) {
  if (!finite(terms) || !finite(result) || terms <= 0) return {};
  return make(terms / std::max(result, terms / kMaxFactor),
              std::string(what) + " cancels to 1/" + short_number(terms / std::max(result, 1e-300)) +
                  " of its terms");
}

}  // namespace

double RowStats::rms() const {
  if (!finite(norm) || numel <= 0) return std::numeric_limits<double>::quiet_NaN();
  return tensor ? norm / std::sqrt((double)numel) : std::fabs(max);
}

double RowStats::abs_max() const { return std::max(std::fabs(max), std::fabs(min)); }

OpCondition op_condition(const std::string& entry, const std::vector<RowStats>& in,
                         const std::vector<RowStats>& out) {
  const std::string op = op_of(entry);
  if (op.empty() || in.empty()) return {};
  const RowStats& x = in[0];
  const bool backward = entry.find(".backward") != std::string::npos;
  if (backward) return {};  // gradients: no estimate from forward statistics
  if (one_of(op, {"pow", "__pow__", "__ipow__", "pow_", "float_power"})) {
    if (in.size() >= 2 && !in[1].tensor && finite(in[1].max))
      return make(std::fabs(in[1].max),
                  "x^" + short_number(in[1].max) + " multiplies it by " + short_number(std::fabs(in[1].max)));
    return make(4, "a power");
  }
  if (one_of(op, {"square"})) return make(2, "x^2 doubles it");
  // (tanh, sigmoid, gelu, silu amplify little where their outputs are large: no estimate.)
  if (one_of(op, {"exp", "exp_", "exp2", "expm1", "sinh", "cosh", "__rpow__"}))
    return make(x.abs_max(),
                op + " of values up to " + short_number(x.abs_max()) + " multiplies it by as much");
  if (one_of(op, {"softmax", "_softmax", "log_softmax", "_log_softmax", "softmin"}))
    return make(2 * x.abs_max(), op + " of values up to " + short_number(x.abs_max()) +
                                     " multiplies it by up to " + short_number(2 * x.abs_max()));
  if (one_of(op, {"log", "log_", "log2", "log10", "log1p"})) {
    // |d log x / log x| = (dx/x) / |log x|: large where the logarithm is near zero.
    if (out.empty()) return {};
    const double lo = out[0].min, hi = out[0].max;
    if (!finite(lo) || !finite(hi)) return {};
    const double nearest = lo <= 0 && hi >= 0 ? 0 : std::min(std::fabs(lo), std::fabs(hi));
    return make(1 / std::max(nearest, 1 / kMaxFactor),
                "log of values near 1 (log down to " + short_number(nearest) + ")");
  }
  if (one_of(op, {"div", "div_", "__truediv__", "__rtruediv__", "__itruediv__", "true_divide", "__div__",
                  "divide", "addcdiv", "addcdiv_"}))
    return make(2, "a quotient adds its operands' errors");
  if (one_of(op, {"layer_norm", "layernorm", "rms_norm", "rmsnorm", "group_norm", "groupnorm", "batch_norm",
                  "batchnorm1d", "batchnorm2d", "batchnorm3d", "instance_norm", "normalize", "norm"})) {
    // Normalizing removes the mean: what is left is the spread, and the error of the mean part
    // lands on it.
    const double rms = x.rms();
    const double spread = std::sqrt(std::max(rms * rms - x.mean * x.mean, 0.0));
    if (!finite(rms) || rms <= 0) return {};
    return make(2 * rms / std::max(spread, rms / kMaxFactor),
                "normalizing values whose spread is 1/" + short_number(rms / std::max(spread, 1e-300)) +
                    " of their size");
  }
  if (one_of(op, {"add", "add_", "__add__", "__iadd__", "__radd__", "sub", "sub_", "__sub__", "__isub__",
                  "__rsub__", "subtract", "rsub"})) {
    if (out.empty()) return {};
    double terms = 0;
    for (size_t i = 0; i < std::min<size_t>(in.size(), 2); ++i) terms += in[i].rms();
    return cancellation(terms, out[0].rms(), "the sum");
  }
  if (one_of(op, {"sum", "mean", "cumsum", "nansum"})) {
    if (!finite(x.mean) || !finite(x.rms())) return {};
    return cancellation(x.rms(), std::fabs(x.mean), "the sum");
  }
  if (one_of(op, {"linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm"})) {
    // Dot products of K terms: sqrt(K) * rms(a) * rms(b) when nothing cancels.
    const bool with_bias = op == "addmm" || op == "baddbmm" || op == "addbmm";
    const size_t a = with_bias ? 1 : 0;
    if (in.size() < a + 2 || out.empty()) return {};
    double terms = std::sqrt((double)std::max<int64_t>(in[a].last_dim, 1)) * in[a].rms() * in[a + 1].rms();
    if (with_bias) terms += in[0].rms();
    return cancellation(terms, out[0].rms(), "the product");
  }
  return {};
}

}  // namespace compare
}  // namespace msprobe
