// A config.json (msprobe 1.2.1's format, both frameworks) that re-dumps one call in tensor mode:
// compare writes one per run for each first-divergence suspect, so that the next training run
// keeps the call's tensors and nothing else.
//   an API ("Functional.gelu.2.forward"): level L1, list ["Functional.gelu.2."] (its forward
//     and backward: list items match names as substrings);
//   a module or cell ("Module.blocks.2.Block.forward.0"): level mix, list [the call], which
//     dumps the call and every API inside it.
// step and rank are the suspect's (none when the dump had no stepN / rankN folder).
#pragma once
#include <string>

namespace msprobe {

struct RedumpScope {
  std::string entry;      // the suspect's dump entry name
  int step = -1;          // -1: every step
  int rank = -1;          // -1: every rank
  std::string dump_path;  // where the re-dump goes
};

// json.dump(config, f, indent=4) of the config; parse_dump_config accepts it.
std::string redump_config_json(const RedumpScope& scope);

// The list item that selects the call: "Functional.gelu.2." for an API entry, the entry itself
// for a module or cell.
std::string redump_list_item(const std::string& entry);

}  // namespace msprobe
