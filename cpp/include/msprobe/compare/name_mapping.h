// The MindSpore name mappings of 1.2.1's compare, as NameMapper implementations:
//   -am  ApiMapper        MindSpore API names -> PyTorch API names (built-in table + user table)
//   -cm  CellMapper       Cell.{path}.{Class} -> Module.{path'}.{Class'}
//   -dm  DataMapper       explicit (npu row, bench row) pairs
//   -lm  LayerMapper      pairs derived from both dumps' module trees and a layer-name table
// The tables come in as plain containers (Python loads the yaml files); 1.2.1's behaviour, quirks
// included, is described at each class.
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "msprobe/compare/name_mapper.h"

namespace msprobe {
namespace compare {

// "{A}.{B}" of a row name "{A}.{B}.{...}" (1.2.1's get_api_name). Throws InvalidInput when the
// name has fewer than two dot-separated parts.
std::string api_name_of(const std::string& row_name);

// Python's str.replace(old, new[, count]): count < 0 replaces every occurrence.
std::string py_replace(const std::string& s, const std::string& old_text, const std::string& new_text,
                       int count = -1);

// One entry of the user -am table (a yaml list of dicts). Index lists hold the yaml values as
// text (1.2.1 compares them with str()).
struct UserApiMapping {
  std::string ms_api, pt_api;
  std::vector<std::string> ms_args, pt_args, ms_output, pt_output, ms_parameters, pt_parameters,
      ms_parameters_grad, pt_parameters_grad;
};

// -am. The key of an npu row:
//  1. API "Mint.x" -> every "Mint" in the row name becomes "Torch"; "MintFunctional.x" -> every
//     "MintFunctional" becomes "Functional"; an API in the built-in table -> every occurrence of
//     the API name is replaced by the table's PyTorch name; otherwise the name itself.
//  2. With a user table (-am FILE), rows of an entry's ms_api (when the bench has rows of its
//     pt_api) get instead: the row name with ms_api replaced once by pt_api, and the index after
//     ".input." / ".kwargs." (ms_args), ".output." (ms_output), ".parameters." (ms_parameters) or
//     ".parameters_grad." (ms_parameters_grad) rewritten from the i-th ms value to the i-th pt
//     value, where the text after the pattern starts with the ms value (every matching value
//     rewrites, the last one wins). A row no value matches gets the key "{name}abandoned" (it
//     matches nothing). Entries whose ms_/pt_ lists differ in length are skipped.
class ApiMapper : public NameMapper {
 public:
  // builtin: 1.2.1's ms_to_pt_api.yaml; user: the -am file's entries (empty without a file).
  ApiMapper(std::unordered_map<std::string, std::string> builtin, std::vector<UserApiMapping> user);
  void prepare(const std::vector<std::string>& npu_rows, const std::vector<std::string>& bench_rows) override;
  std::string npu_key(const std::string& row_name) const override;
  bool maps_names() const override { return true; }
  // Entries skipped because their ms_/pt_ lists differ in length (1.2.1 warns about each).
  const std::vector<std::string>& skipped_entries() const { return skipped_; }

  std::string builtin_key(const std::string& row_name) const;

 private:
  std::unordered_map<std::string, std::string> builtin_;
  std::vector<UserApiMapping> user_;
  std::vector<std::string> skipped_;
  std::unordered_map<std::string, std::string> user_keys_;  // row name -> key (prepare)
};

// -cm. The key of an npu row: "N/A" unless the name holds ".forward." / ".backward." or a
// "parameters_grad" part; else the first "Cell" becomes "Module" and, when the table has the
// row's cell "{path}.{Class}" (the text after the first dot, up to ".forward." / ".backward." /
// ".parameters_grad."), its first occurrence is replaced by the table's value. API rows keep their
// names (they match nothing of PyTorch unless named alike).
class CellMapper : public NameMapper {
 public:
  explicit CellMapper(std::unordered_map<std::string, std::string> table);
  std::string npu_key(const std::string& row_name) const override;
  bool maps_names() const override { return true; }

 private:
  std::unordered_map<std::string, std::string> table_;
};

// -dm. The yaml's pairs in file order; matching is replaced by them (see NameMapper).
class DataMapper : public NameMapper {
 public:
  explicit DataMapper(std::vector<std::pair<std::string, std::string>> pairs);
  const std::vector<std::pair<std::string, std::string>>* data_mapping() const override { return &pairs_; }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
};

// -lm (1.2.1 core/compare/layer_mapping). Reads dump.json, stack.json and construct.json of both
// dumps (stack.json and construct.json beside dump.json; with either empty a side has no items).
// Every entry gets a scope: its layer (from construct.json, or its own name for Cell/Module
// entries), the first framework frame of its stack (for APIs), and its short name; backward
// entries take their forward entry's scope. The scopes of each side form a tree; an npu entry is
// looked up in the bench tree under its scope with the layer names renamed by the table
// ({parent type: {"child[.grandchild...]": "new name"}}, longest first; a top-level "Cell" key
// means "TopLayer"), as the same-numbered entry of the same state there. Its rows are then paired
// with the bench entry's rows by their suffix after the entry name; rows without a partner and
// entries without a bench entry pair with "N/A". Throws FileError / InvalidInput (one line).
class LayerMapper : public NameMapper {
 public:
  using Table = std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>;
  LayerMapper(const std::string& npu_dump_json, const std::string& bench_dump_json, const Table& table);
  const std::vector<std::pair<std::string, std::string>>* data_mapping() const override { return &pairs_; }
  // npu entry name -> bench entry name or "N/A", in npu dump order (1.2.1's api_mapping)
  const std::vector<std::pair<std::string, std::string>>& entry_mapping() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_, entries_;
};

}  // namespace compare
}  // namespace msprobe
