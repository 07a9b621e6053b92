// Headers of 1.2.1's compare result per mode (see compare_const.h).
#include "msprobe/compare/compare_const.h"

namespace msprobe {
namespace compare {

const std::vector<std::string>& mode_header(CompareMode mode) {
  using namespace k;
  static const std::vector<std::string> tensor = {
      kNpuName,   kBenchName,      kNpuDtype,      kBenchDtype,      kNpuShape,  kBenchShape, kCosine,
      kMaxAbsErr, kMaxRelativeErr, kOneThousandth, kFiveThousandths, kNpuMax,    kNpuMin,     kNpuMean,
      kNpuNorm,   kBenchMax,       kBenchMin,      kBenchMean,       kBenchNorm, kAccuracy,   kErrorMessage};
  static const std::vector<std::string> statistics = {
      kNpuName,         kBenchName,       kNpuDtype,  kBenchDtype, kNpuShape,       kBenchShape,
      kMaxDiff,         kMinDiff,         kMeanDiff,  kNormDiff,   kMaxRelativeErr, kMinRelativeErr,
      kMeanRelativeErr, kNormRelativeErr, kNpuMax,    kNpuMin,     kNpuMean,        kNpuNorm,
      kBenchMax,        kBenchMin,        kBenchMean, kBenchNorm,  kResult,         kErrorMessage};
  static const std::vector<std::string> md5 = {kNpuName,    kBenchName, kNpuDtype, kBenchDtype, kNpuShape,
                                               kBenchShape, kNpuMd5,    kBenchMd5, kResult};
  switch (mode) {
    case CompareMode::kTensor: return tensor;
    case CompareMode::kStatistics: return statistics;
    case CompareMode::kMd5: return md5;
  }
  return statistics;
}

std::vector<std::string> table_header(CompareMode mode, bool stack_mode) {
  std::vector<std::string> h = mode_header(mode);
  if (stack_mode) h.push_back(k::kStack);
  if (mode == CompareMode::kTensor) h.push_back(k::kDataName);
  return h;
}

int header_index(CompareMode mode, const char* name) {
  const auto& h = mode_header(mode);
  for (size_t i = 0; i < h.size(); ++i)
    if (h[i] == name) return (int)i;
  return -1;
}

}  // namespace compare
}  // namespace msprobe
