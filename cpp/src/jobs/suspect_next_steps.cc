// The next step of every suspect (see suspect_next_steps.h).
#include "msprobe/jobs/suspect_next_steps.h"

#include <cctype>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/config/redump_config.h"
#include "msprobe/opgen/op_config.h"
#include "msprobe/opgen/op_script.h"

namespace msprobe {
namespace compare {
namespace {

// A folder name for the suspect: its number (ranked order) and its entry, other characters '_'.
std::string suspect_folder(size_t index, size_t count, const Suspect& s) {
  std::string number = std::to_string(index + 1);
  const size_t width = std::to_string(count).size();
  if (number.size() < width) number.insert(0, width - number.size(), '0');
  std::string name = number + "_";
  if (s.rank >= 0) name += "rank" + std::to_string(s.rank) + "_";
  for (char c : s.name) name += std::isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' ? c : '_';
  return name;
}

// op_generate's api_name of an entry it can replay ("Functional.gelu.2"), else "".
std::string op_generate_api(const std::string& entry) {
  try {
    const opgen::ApiCall call = opgen::split_api_entry(entry);
    if (call.direction != "forward" && call.direction != "backward") return "";
    return entry.substr(0, entry.size() - call.direction.size() - 1);
  } catch (const InvalidInput&) {
    return "";
  }
}

}  // namespace

std::string next_steps_folder_name(const std::string& suffix, const std::string& timestamp) {
  return "next_steps" + suffix + "_" + timestamp;
}

void write_suspect_next_steps(std::vector<Suspect>* suspects, const NextStepsInput& in) {
  if (suspects->empty()) return;
  const std::string root = absolute_path(in.folder);
  for (size_t i = 0; i < suspects->size(); ++i) {
    Suspect& s = (*suspects)[i];
    const std::string name = suspect_folder(i, suspects->size(), s);
    const std::string dir = join_path(root, name);
    make_dirs(dir, "next steps folder");
    for (const char* run : {"npu", "bench"}) {
      RedumpScope scope;
      scope.entry = s.name;
      scope.step = s.step;
      scope.rank = s.rank;
      scope.dump_path = "./redump/" + name + "/" + run;
      const std::string path = join_path(dir, std::string("config_") + run + ".json");
      write_file_atomically(path, redump_config_json(scope));
      (std::string(run) == "npu" ? s.next_steps.redump_config_npu : s.next_steps.redump_config_bench) = path;
    }
    const std::string api = in.framework == "pytorch" ? op_generate_api(s.name) : "";
    if (api.empty()) continue;
    opgen::OpConfig op;
    op.dump_json_path = absolute_path(in.npu_json);
    op.api_name = api;
    op.extract_api_path = join_path(dir, api + ".json");
    op.propagation = s.forward ? "forward" : "backward";
    op.data_mode = in.tensor_data ? "real_data" : "random_data";
    s.next_steps.config_op = join_path(dir, "config_op.json");
    write_file_atomically(s.next_steps.config_op, opgen::config_op_json(op));
  }
}

std::string next_steps_line(const Suspect& s) {
  const SuspectNextSteps& n = s.next_steps;
  if (n.empty()) return "";
  std::string line = "Next step for " + s.name + ": re-dump it in tensor mode with " + n.redump_config_npu +
                     " (NPU run) and " + n.redump_config_bench + " (bench run), then compare again";
  if (!n.config_op.empty()) {
    line += "; reproduce it alone: msprobe -f pytorch op_generate -i " + n.config_op + " -o " +
            folder_of(n.config_op);
  }
  return line + ".";
}

}  // namespace compare
}  // namespace msprobe
