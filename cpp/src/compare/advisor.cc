#include "msprobe/compare/advisor.h"

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"

namespace msprobe {
namespace compare {

namespace {

// 1.2.1's AdvisorConst texts.
constexpr const char* kNoErrSuggest = "All data in comparison result meets the accuracy requirements.";
constexpr const char* kForwardInputSuggest =
    "1. Analyze the model to view the input source.\n"
    "2. Check whether an inplace API causes the output result to overwrite the input result. "
    "That is, the fault is actually caused by a computation error.\n"
    "3. The fault may be caused by memory corruption and further analysis is required.";
constexpr const char* kForwardOutputSuggest =
    "This is a forward API computation error. Check the computation implementation.";
constexpr const char* kBackwardInputSuggest = "Check whether the forward computation result is affected.";
constexpr const char* kBackwardOutputSuggest =
    "This is a backward API computation error. Check the computation implementation.";
constexpr const char* kBatchNormSuggest =
    "Torch API batch_norm input not fixed, the following suggestions may fix it:\n"
    "1. If use torch.nn.functional.batch_norm, you can set parameter training=False.\n"
    "2. If use torch.nn.BatchNormXXX, you can set parameter affine=False.\n"
    "3. Use seed_all(mode=True) to enable deterministic computing.";
constexpr const char* kDeterministicSuggest =
    "This torch api may be uncertainty in the calculation, "
    "can seed_all(mode=True) to enable deterministic computing.";
constexpr const char* kNeedDeterministicApi[] = {"conv2d",   "conv3d",     "matmul",
                                                 "nll_loss", "layer_norm", "lstm"};

bool cell_is(const Cell& c, const char* text) { return c.kind == Cell::Kind::kString && c.s == text; }

std::string deterministic_advice(const std::string& message, const std::string& node) {
  for (const char* api : kNeedDeterministicApi)
    if (contains(node, api)) return kDeterministicSuggest;
  return message;
}

enum class ResultKind { kTensor, kMd5, kStatistics };

ResultKind result_kind(const CompareTable& t) {
  // 1.2.1 recognises the table by its columns, in this order.
  if (t.column("Accuracy Reached or Not") >= 0 && t.column("NPU Name") >= 0) return ResultKind::kTensor;
  if (t.column("Result") >= 0 && t.column("NPU MD5") >= 0) return ResultKind::kMd5;
  if (t.column("Max diff") >= 0 && t.column("Result") >= 0) return ResultKind::kStatistics;
  throw InvalidInput("Compare result does not meet the required conditions.");
}

}  // namespace

std::string advisor_message(const std::string& node) {
  std::string message;
  // Plain substring tests, as 1.2.1 does them ("forward"/"input" anywhere in the name).
  if (contains(node, "forward")) {
    if (contains(node, "input")) {
      message = kForwardInputSuggest;
    } else {
      message = deterministic_advice(kForwardOutputSuggest, node);
    }
  } else {
    if (contains(node, "input")) {
      message = kBackwardInputSuggest;
    } else {
      message = deterministic_advice(kBackwardOutputSuggest, node);
    }
  }
  // 1.2.1 looks for these spellings, which its own names never contain; kept as it is.
  if (contains(node, "Functional_batch_norm") && contains(node, "forward_input.1"))
    message = kBatchNormSuggest;
  return message;
}

AdvisorResult analyze_compare_table(const CompareTable& t, const std::string& first_suspect) {
  const ResultKind kind = result_kind(t);
  AdvisorResult out;
  const int name_col = t.column("NPU Name");
  auto name_of = [&](size_t r) -> std::string {
    if (name_col < 0 || (size_t)name_col >= t.rows[r].size()) return "";
    const Cell& c = t.rows[r][name_col];
    return c.kind == Cell::Kind::kString ? c.s : "";
  };
  const int accuracy_col = t.column("Accuracy Reached or Not");
  const int result_col = t.column("Result");
  const int npu_shape_col = t.column("NPU Tensor Shape");
  const int bench_shape_col = t.column("Bench Tensor Shape");
  auto at = [&](size_t r, int col, const char* text) {
    return col >= 0 && (size_t)col < t.rows[r].size() && cell_is(t.rows[r][col], text);
  };
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const bool unmatched = kind == ResultKind::kTensor
                               ? at(r, accuracy_col, "Unmatched")
                               : at(r, npu_shape_col, "Nan") || at(r, bench_shape_col, "Nan");
    if (unmatched) {
      out.warnings.push_back("The tensor name matches but the shape or dtype does not match: " + name_of(r));
    }
  }
  auto found_at = [&](size_t r) {
    out.found = true;
    out.line = std::to_string(r);
    out.suspect_node = name_of(r);
    out.message = advisor_message(out.suspect_node);
    return out;
  };
  if (!first_suspect.empty()) {
    for (size_t r = 0; r < t.divergence.size() && r < t.rows.size(); ++r) {
      const std::string name = name_of(r);
      if (t.divergence[r] == kSuspect && (name == first_suspect || starts_with(name, first_suspect + ".")))
        return found_at(r);
    }
  }
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const bool failing = kind == ResultKind::kTensor ? at(r, accuracy_col, "No")
                         : kind == ResultKind::kMd5  ? at(r, result_col, "Different")
                                                     : at(r, result_col, "Warning");
    if (failing) return found_at(r);
  }
  // Beyond 1.2.1: a red row (its highlight rules) fails too, so that the advisor never calls a
  // table with red rows accurate.
  for (size_t r = 0; r < t.rows.size() && r < t.fills.size(); ++r)
    if (t.fills[r] == Fill::kRed) return found_at(r);
  out.message = kNoErrSuggest;
  return out;
}

std::vector<std::string> advisor_lines(const AdvisorResult& r) {
  std::vector<std::string> lines = {"Line: " + r.line, "Suspect Nodes: " + r.suspect_node,
                                    "Expert Advice: " + r.message};
  if (!r.first_divergence.empty()) lines.push_back("First Divergence: " + r.first_divergence);
  return lines;
}

void write_advisor_file(const AdvisorResult& result, const std::string& path) {
  std::string text;
  for (const std::string& line : advisor_lines(result)) text += line + "\n";
  write_file_atomically(path, text);
}

}  // namespace compare
}  // namespace msprobe
