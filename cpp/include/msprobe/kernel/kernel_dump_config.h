// The MindSpore dump configuration msprobe 1.2.1 generates for level L2 (reference data-dump
// §6.2): kernel_kbyk_dump.json (O0/O1 and PyNative jit parts) and kernel_graph_dump.json (O2),
// and, for task overflow_check, kernel_graph_overflow_check.json (O2), as the text Python's
// json.dump(indent=4) writes.
#pragma once
#include <string>

#include "msprobe/config/dump_config.h"

namespace msprobe {

enum class KernelDumpKind { kKbyk, kGraph, kGraphOverflow };

// saved_data: "" for the task's own value ("statistic", "tensor"; "full" for overflow_check);
// otherwise that value.
std::string kernel_dump_json(const DumpConfig& cfg, KernelDumpKind kind, const std::string& saved_data = "");

}  // namespace msprobe
