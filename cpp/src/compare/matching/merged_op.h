// One dump entry as 1.2.1's compare holds it after merge_tensor (core/compare/utils.py): the row
// names of its leaves, their (dtype, shape[, md5]) structs grouped by state, their statistics,
// tensor file names and the entry's stack.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "msprobe/format/json_value.h"
#include "op_items.h"

namespace msprobe {
namespace compare {

enum class State { kInput, kKwargs, kOutput, kParams, kParamsGrad };
// The struct group a state belongs to (STATE_TO_STRUCT_MAPPING): kwargs rows are input rows.
enum StructGroup { kInputGroup = 0, kOutputGroup = 1, kParamsGroup = 2, kParamsGradGroup = 3 };
StructGroup group_of(State s);

struct NameState {
  std::string api;  // "Functional.conv2d.0.forward." / "Module.fc.Linear.forward.0."
  State state;
};
// get_name_and_state; throws InvalidInput("Invalid name string: ...") as 1.2.1 does.
NameState get_name_and_state(const std::string& name);

struct LeafStruct {
  JsonValue dtype, shape, md5;
};

struct MergedOp {
  std::string entry;                               // the dump.json entry name
  std::vector<std::string> op_name;                // leaf row names in read order
  std::array<std::vector<LeafStruct>, 4> structs;  // by StructGroup
  std::vector<std::array<JsonValue, 4>> summary;   // Max, Min, Mean, Norm per leaf
  std::vector<std::string> data_name;              // per leaf ("-1" when none)
  bool has_stack = false;                          // stack mode: stack_info == [stack]
  // The entry's stack in the stack map, which outlives matching (not copied: a large dump has
  // hundreds of thousands of them); null when stack.json lacks the entry.
  const JsonValue* stack = nullptr;
  bool empty() const { return op_name.empty(); }
  static MergedOp named(std::string entry) {
    MergedOp op;
    op.entry = std::move(entry);
    return op;
  }
  const JsonValue& stack_value() const;  // *stack, or None
};

// merge_tensor: leaves -> MergedOp (empty when the entry has no leaf). The md5 is always kept;
// it is part of the struct only in md5 mode (see same_struct in matching).
MergedOp merge_items(const std::string& entry, std::vector<OpItem>&& items);

// reorder_op_x_list: leaf indices in 1.2.1's row order (inputs/kwargs, parameters, outputs,
// parameters_grad). Where two leaves share a name, both rows take the data of the last one, as
// 1.2.1's name -> index map does.
std::vector<size_t> reordered_leaves(const MergedOp& op);

}  // namespace compare
}  // namespace msprobe
