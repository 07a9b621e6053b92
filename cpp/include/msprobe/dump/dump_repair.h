// Repair of dumps cut by a kill or a power cut: dump.json, stack.json and construct.json are
// rewritten (atomically) to hold every record that was complete in the surviving prefix, closed so
// that json.load and 1.2.1's tools read them. The cut is found by the dump reader (reader/), which
// reads torn files the same way in memory.
#pragma once
#include <string>
#include <vector>

namespace msprobe {

struct RepairResult {
  enum class Action {
    kIntact,     // a complete document: left as it was
    kTrimmed,    // complete, followed by blank space (the writer's runway) or zero bytes: cut off
    kRewritten,  // cut: rewritten with its complete records and closed
    kRemoved,    // a temporary file left by a process killed while replacing a file
    kFailed,     // malformed (not merely cut) or unreadable: left as it was
  };
  std::string path;
  Action action = Action::kIntact;
  std::string message;  // one line, naming the file (empty for kIntact)
};

// Repairs one dump file in place. Which file it is (dump.json or another) is told by its name.
// `durable`: the rewritten file is fsynced before it replaces the cut one (tests turn it off).
RepairResult repair_dump_file(const std::string& path, bool durable = true);

struct RepairOptions {
  // Only files whose end is not a closed document are read in full (the end of a complete
  // dump file is a '}' in the first column): fast on large dumps.
  bool quick = false;
  // Only files in folders of this name ("rank0", or "rank" when not distributed); all when empty.
  std::string rank_folder;
};

// Repairs every dump.json / stack.json / construct.json under `path` (a dump_path, a step or rank
// folder, or one file) and removes temporary files left by killed processes. Symbolic links are
// not followed. Returns one result per file that was not intact.
std::vector<RepairResult> repair_dump_tree(const std::string& path, const RepairOptions& options);

}  // namespace msprobe
