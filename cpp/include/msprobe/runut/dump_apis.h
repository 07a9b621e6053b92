// The API calls of a dump.json as run_ut replays them (accuracy-checker spec §1.3, §1.4).
//
// Entries are classified by their LAST name segment: "X.forward" is a forward record,
// "X.backward" a backward one. (1.2.1 tested whether the name *contains* "forward", so a dump
// with Functional.multi_head_attention_forward.0.backward stopped the whole run.) Keys holding
// "Module" (L0 / mix module records, parameters_grad) are skipped as in 1.2.1; any other key is
// skipped with a warning naming it instead of aborting the run.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "msprobe/format/json_value.h"

namespace msprobe {
namespace runut {

struct DumpApi {
  std::string name;                     // "Functional.conv2d.0" (no direction suffix)
  const JsonValue* forward = nullptr;   // the forward record
  const JsonValue* backward = nullptr;  // the backward record, or nullptr
};

class DumpApis {
 public:
  // Reads `path` with reader::DumpJsonReader. Throws FileError with one line naming the file and
  // the position (line and column for syntax errors; the key for structural errors). A torn file
  // (cut by a kill) keeps its complete entries; the repair note is one of warnings().
  static DumpApis load(const std::string& path);

  const std::string& path() const { return path_; }
  // dump_data_dir is truthy (Python truth): tensors are under <dir of dump.json>/dump_tensor_data.
  bool has_real_data() const { return real_data_; }
  const std::string& real_data_dir() const { return real_data_dir_; }
  // The header's "task" and "framework" ("" when absent).
  const std::string& task() const { return task_; }
  const std::string& framework() const { return framework_; }
  size_t size() const { return apis_.size(); }
  const DumpApi& api(size_t i) const { return apis_[i]; }
  // Index of a forward API by name, or -1.
  int64_t index_of(std::string_view name) const;
  // Backward records without a forward record (they are never run).
  size_t orphan_backward() const { return orphan_backward_; }
  // One line per skipped key (unknown name structure), and the repair note of a torn file.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::deque<JsonValue> records_;  // the kept records (stable addresses)
  std::string path_, real_data_dir_, task_, framework_;
  bool real_data_ = false;
  std::vector<DumpApi> apis_;
  std::unordered_map<std::string, size_t> index_;
  size_t orphan_backward_ = 0;
  std::vector<std::string> warnings_;
};

// `-f/--filter_api`: indices (ascending) of the APIs kept. Calls are grouped by the name minus
// its last segment ("Torch.add"); a call is dropped when a kept call of its group has equal
// input_kwargs and equal top-level dict input_args once the keys Max and Min are removed.
std::vector<size_t> filter_similar_apis(const DumpApis& apis);

// run_ut's name split: 3 segments -> (type, name), 4 -> (type, "prefix.name"); otherwise false.
bool split_api_name(std::string_view full_name, std::string* api_type, std::string* api_name);

// A details row name, the API, its direction and its output: "Torch.add.0.forward.output.1" ->
// api_full "Torch.add.0", direction "forward", api_name as split_api_name gives it ("add"; with
// 7 segments "prefix.name"). False when the API part does not split (1.2.1's
// extract_detailed_api_segments). Any pointer may be null.
bool split_details_row_name(std::string_view row_name, std::string* api_name, std::string* api_full,
                            std::string* direction);

}  // namespace runut
}  // namespace msprobe
