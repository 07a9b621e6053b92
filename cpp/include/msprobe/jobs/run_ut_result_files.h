// accuracy_checking_result_{ts}.csv and accuracy_checking_details_{ts}.csv: creation, appending
// one API at a time, resume repair and final ordering (accuracy-checker spec §1.11, §3, §4).
//
// Files are UTF-8 with a BOM, Python-csv records ("\r\n"), mode 0640, as 1.2.1 writes them.
// Differences from 1.2.1 (bug fixes, see docs/compatibility.md):
//  - each API is written with one write(2) per file, details first and the result row last,
//    under an exclusive flock: a kill -9 never leaves a torn row, and an API whose result row is
//    missing is re-run on resume (1.2.1 wrote the result row first, so a crash in between left
//    an API without details that resume never re-ran);
//  - resume drops the details rows of APIs without a result row, a torn last record and
//    repeated result rows, so a resumed run ends with exactly one row per API;
//  - multi_run_ut reorders both files in dump order when all workers are done.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "msprobe/runut/api_result.h"

namespace msprobe {
namespace runut {

// Which run_ut wrote the files: PyTorch's (23 details columns) or MindSpore's (docs 09: API Name,
// Bench Dtype, Tested Dtype, Shape, Cosine, MaxAbsErr, MaxRelativeErr, Status, Message).
enum class CsvLayout { kPyTorch, kMindSpore };

// API name, Forward Test Success, Backward Test Success, Message ("API Name" for MindSpore).
const std::vector<std::string>& result_header(CsvLayout layout = CsvLayout::kPyTorch);
const std::vector<std::string>& details_header(CsvLayout layout = CsvLayout::kPyTorch);

// The API of a details row name: "Torch.add.0.forward.output.1" -> "Torch.add.0".
std::string_view details_row_api(std::string_view row_name);

class ResultWriter {
 public:
  // Opens both files for appending, creating them with their header (mode 0640) when they do
  // not exist. Refuses symbolic links. Throws FileError naming the file.
  ResultWriter(const std::string& result_path, const std::string& details_path,
               CsvLayout layout = CsvLayout::kPyTorch);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  // Appends the API's details rows, then its result row.
  void write(const ApiResult& result);
  // Appends pre-formatted CSV text (details then result) under the same lock.
  void write_text(const std::string& details, const std::string& result);
  void close();

 private:
  std::string result_path_, details_path_;
  int result_fd_ = -1, details_fd_ = -1;
};

struct ResumeReport {
  std::vector<std::string> done;       // API names with a result row, in file order
  int64_t dropped_detail_rows = 0;     // rows of APIs without a result row
  int64_t dropped_result_rows = 0;     // repeated result rows
  bool truncated_torn_record = false;  // a partial last record was removed (either file)
};

// Validates both files for resuming (readable, regular, not links, expected headers) and
// repairs them as described above (atomic replace when anything changes). Throws FileError /
// InvalidInput with one line naming the file and the problem.
ResumeReport prepare_resume(const std::string& result_path, const std::string& details_path,
                            CsvLayout layout = CsvLayout::kPyTorch);

// Rewrites both files with their rows grouped by API in `order` (API names); APIs not listed
// follow in their current order. Atomic replace; no-op when already ordered.
void reorder_result_files(const std::string& result_path, const std::string& details_path,
                          const std::vector<std::string>& order);

}  // namespace runut
}  // namespace msprobe
