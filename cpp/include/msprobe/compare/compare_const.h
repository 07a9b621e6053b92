// Column names and cell strings of 1.2.1's compare (core/common/const.py CompareConst).
#pragma once
#include <string>
#include <vector>

#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {
namespace k {

inline constexpr const char* kNpuName = "NPU Name";
inline constexpr const char* kBenchName = "Bench Name";
inline constexpr const char* kNpuDtype = "NPU Dtype";
inline constexpr const char* kBenchDtype = "Bench Dtype";
inline constexpr const char* kNpuShape = "NPU Tensor Shape";
inline constexpr const char* kBenchShape = "Bench Tensor Shape";
inline constexpr const char* kNpuMax = "NPU max";
inline constexpr const char* kNpuMin = "NPU min";
inline constexpr const char* kNpuMean = "NPU mean";
inline constexpr const char* kNpuNorm = "NPU l2norm";
inline constexpr const char* kBenchMax = "Bench max";
inline constexpr const char* kBenchMin = "Bench min";
inline constexpr const char* kBenchMean = "Bench mean";
inline constexpr const char* kBenchNorm = "Bench l2norm";
inline constexpr const char* kMaxDiff = "Max diff";
inline constexpr const char* kMinDiff = "Min diff";
inline constexpr const char* kMeanDiff = "Mean diff";
inline constexpr const char* kNormDiff = "L2norm diff";
inline constexpr const char* kCosine = "Cosine";
inline constexpr const char* kMaxAbsErr = "MaxAbsErr";
inline constexpr const char* kMaxRelativeErr = "MaxRelativeErr";
inline constexpr const char* kMinRelativeErr = "MinRelativeErr";
inline constexpr const char* kMeanRelativeErr = "MeanRelativeErr";
inline constexpr const char* kNormRelativeErr = "NormRelativeErr";
inline constexpr const char* kAccuracy = "Accuracy Reached or Not";
inline constexpr const char* kStack = "NPU_Stack_Info";
inline constexpr const char* kDataName = "Data_name";
inline constexpr const char* kErrorMessage = "Err_message";
inline constexpr const char* kOneThousandth = "One Thousandth Err Ratio";
inline constexpr const char* kFiveThousandths = "Five Thousandths Err Ratio";
inline constexpr const char* kNpuMd5 = "NPU MD5";
inline constexpr const char* kBenchMd5 = "BENCH MD5";
inline constexpr const char* kResult = "Result";

// Cell strings.
inline constexpr const char* kNA = "N/A";
inline constexpr const char* kNan = "Nan";
inline constexpr const char* kNone = "None";
inline constexpr const char* kPass = "pass";
inline constexpr const char* kDiff = "Different";
inline constexpr const char* kWarning = "Warning";
inline constexpr const char* kYes = "Yes";
inline constexpr const char* kNo = "No";
inline constexpr const char* kUnmatched = "Unmatched";
inline constexpr const char* kUnsupported = "unsupported";
inline constexpr const char* kReadNone = "No data";
inline constexpr const char* kShapeUnmatch = "shape unmatched";
inline constexpr const char* kUnreadable = "unreadable data";
inline constexpr const char* kNoBench = "No bench data matched.";
inline constexpr const char* kNeedDoubleCheck = "Need double check api accuracy.";

}  // namespace k

// HEAD_OF_COMPARE_MODE[mode] (without stack / Data_name).
const std::vector<std::string>& mode_header(CompareMode mode);
// The table's columns as make_result_table builds them: + NPU_Stack_Info in stack mode, + Data_name
// in tensor mode.
std::vector<std::string> table_header(CompareMode mode, bool stack_mode);
// Index of a column of mode_header(mode) (1.2.1 get_header_index); -1 when absent.
int header_index(CompareMode mode, const char* name);

}  // namespace compare
}  // namespace msprobe
