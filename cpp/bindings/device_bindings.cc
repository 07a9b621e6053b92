// Bindings for statistics computed on an accelerator (msprobe/dump/external_stats.h):
//   device_stats_number_dtype(dtype) -> "float32" | "float64"   the type to hand the numbers in
//   external_tensor_stats(dtype, shape, numbers) -> dict         as tensor_stats() would give
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/dump/external_stats.h"
#include "stats_to_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

std::string number_dtype(const std::string& dtype) {
  const msprobe::DType d = msprobe::dtype_from_name(dtype);
  return msprobe::external_stats_number_dtype(d) == msprobe::DType::kFloat64 ? "float64" : "float32";
}

nb::dict external_tensor_stats(const std::string& dtype, const std::vector<int64_t>& shape, nb::bytes numbers,
                               nb::object rescaled) {
  const msprobe::DType d = msprobe::dtype_from_name(dtype);
  msprobe::ExternalStats e = msprobe::decode_external_stats(d, shape, numbers.c_str(), numbers.size());
  const bool need_rescale = msprobe::external_stats_need_rescale(d, shape, e);
  const double scale = msprobe::external_stats_scale(e);
  if (need_rescale && !rescaled.is_none()) {
    const auto mn = nb::cast<std::pair<double, double>>(rescaled);
    msprobe::set_rescaled_moments(e, mn.first * scale, mn.second * scale);
  }
  const msprobe::TensorStats st = msprobe::tensor_stats_from_external(d, shape, e);
  nb::dict out = msprobe::stats_to_python(st);
  out["need_extremes"] = msprobe::external_stats_need_extremes(d, shape, e);
  out["rescale"] = need_rescale ? nb::object(nb::float_(scale)) : nb::none();
  return out;
}

}  // namespace

void bind_device(nb::module_& m) {
  m.def("device_stats_number_dtype", &number_dtype, "dtype"_a,
        "The type ('float32' or 'float64') in which the statistics of a tensor of this dtype\n"
        "are handed to the core (see external_stats.h).");
  m.def("external_tensor_stats", &external_tensor_stats, "dtype"_a, "shape"_a, "numbers"_a,
        "rescaled"_a.none() = nb::none(),
        "tensor_stats()'s dict for statistics computed elsewhere, given as the numbers of\n"
        "external_stats.h; need_extremes says whether the four extremes are still wanted,\n"
        "rescale (a scale or None) whether the (mean, norm) of the values divided by it\n"
        "should be passed as `rescaled`.");
}
