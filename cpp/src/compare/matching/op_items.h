// Flattening one dump.json entry into 1.2.1's leaf items (core/compare/utils.py read_op,
// op_item_parse, gen_op_item) and the string checks 1.2.1 applies to it (check.py
// check_dump_json_str, common/utils.py check_op_str_pattern_valid).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "msprobe/format/json_value.h"

namespace msprobe {
namespace compare {

// One leaf (tensor, scalar, None ...) of an entry, named as a result row.
struct OpItem {
  std::string full_op_name;        // "Functional.conv2d.0.forward.input.0"
  JsonValue dtype, shape, md5;     // as 1.2.1 fills them (str(type(value)) for scalars ...)
  std::array<JsonValue, 4> stats;  // Max, Min, Mean, Norm
  std::string data_name = "-1";    // the tensor file, "-1" when none
};

// read_op: input_args, input_kwargs, input (as ".input"), output, parameters; a
// "...parameters_grad" entry is flattened whole. Throws InvalidInput past 1.2.1's depth limit.
std::vector<OpItem> read_op(const JsonValue& record, const std::string& op_name);

// 1.2.1's formula-injection blacklist: a string starting with + - = % @ (ASCII or full width), or
// holding ';' followed by one of them.
bool is_blacklisted_string(const std::string& s);
// check_op_str_pattern_valid on an entry name; throws InvalidInput with 1.2.1's message.
void check_entry_name(const std::string& name);
// check_dump_json_str: every string of the inputs/outputs (shape must be a list, requires_grad a
// bool); throws InvalidInput with 1.2.1's message.
void check_entry_strings(const JsonValue& record, const std::string& op_name);
// check_stack_json_str: stack lines of one entry.
void check_stack_strings(const JsonValue& stack, const std::string& op_name);

}  // namespace compare
}  // namespace msprobe
