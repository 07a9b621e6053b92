// The compare mode 1.2.1 derives from the two dumps (core/common/utils.py get_dump_mode): task
// "tensor" -> tensors; task "statistics" -> md5 when the dumps hold md5 fields, else statistics.
#pragma once
#include "dump_parse.h"
#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

// Throws InvalidInput with 1.2.1's reason when the tasks are missing, differ or are not
// comparable, or when one dump has md5 fields and the other not.
CompareMode detect_mode(const ParsedDump& npu, const ParsedDump& bench);

}  // namespace compare
}  // namespace msprobe
