// free_benchmark's output: the rows of free_benchmark.csv (1.2.1's columns and meaning, appended
// as they are found, so a killed run keeps them) and, beyond 1.2.1, the ranking of the flagged
// APIs in free_benchmark_summary.json with the user's source line, and its one-line summary.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {
namespace freebench {

// Where the user's code made the call (the innermost frame outside the frameworks and msprobe).
struct SourceLine {
  std::string file, function, text;
  int64_t line = 0;
};

// One flagged output of one call.
struct FuzzRow {
  int64_t rank = -1;  // < 0: the column is empty (MindSpore, or no rank)
  std::string pert_mode, stage;
  int64_t step = 0;
  std::string api_name;       // "Torch.matmul.0.forward" (MindSpore: "Mint.matmul.0")
  std::string max_rel;        // ratio - 1 as Python prints it, "symbol_flipping", or "" (to_cpu)
  std::string dtype, shape;   // of the original output ("" when it is not a tensor)
  int64_t output_index = -1;  // < 0: empty (the output is not a sequence)
  // Beyond 1.2.1, for the ranking: the measure, its limit, and how far beyond it went.
  std::string measure;  // "max_rel", "symbol_flipping", "rel_err", "abs_err", "err_balance"
  double value = 0, limit = 0;
  double excess = 0;  // value / limit (symbol flipping: infinity)
  SourceLine source;
};

// Python's csv text of a row and of the header (pert_column: "pert_mode" for PyTorch, MindSpore
// writes "pert_type").
std::vector<std::string> csv_header(const std::string& pert_column);
std::vector<std::string> csv_fields(const FuzzRow& row);

class FuzzResults {
 public:
  // csv_path: dump_path/free_benchmark.csv, created 0640 with its header when absent, appended
  // to otherwise (as 1.2.1 does). summary_path: free_benchmark_summary.json.
  FuzzResults(std::string csv_path, std::string summary_path, std::string pert_column, std::string framework);
  // Appends the row to the CSV now.
  void add(FuzzRow row);
  const std::vector<FuzzRow>& rows() const { return rows_; }
  int64_t checked_calls() const { return checked_; }
  void count_checked() { ++checked_; }
  // The summary: flagged APIs (api without call index and stage) ranked by their worst excess.
  std::string summary_json(const std::string& pert_mode, const std::string& handler) const;
  void write_summary(const std::string& pert_mode, const std::string& handler) const;
  // One line for the end of the run.
  std::string end_line() const;

 private:
  std::string csv_path_, summary_path_, pert_column_, framework_;
  std::vector<FuzzRow> rows_;
  int64_t checked_ = 0;
};

// "Torch.matmul.0.forward" -> "Torch.matmul", "Mint.matmul.0" -> "Mint.matmul".
std::string api_of_call(const std::string& call);

}  // namespace freebench
}  // namespace msprobe
