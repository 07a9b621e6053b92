// The next step of every suspect (see suspect_next_steps.h).
#include "msprobe/jobs/suspect_next_steps.h"

#include <algorithm>
#include <cctype>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/config/redump_config.h"
#include "msprobe/format/json_writer.h"
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

namespace {

// The dump.json a re-dump writes for the suspect: DUMP/step{S}/rank{R}/dump.json (step0 and
// "rank" when the compared dump had no such folder level).
std::string redump_json(const std::string& dump_path, const Suspect& s) {
  return join_path(join_path(join_path(dump_path, "step" + std::to_string(std::max(s.step, 0))),
                             s.rank >= 0 ? "rank" + std::to_string(s.rank) : std::string("rank")),
                   "dump.json");
}

// compare.json of the two re-dumps, naming the suspect (compare_input.h).
std::string redump_compare_json(const std::string& npu, const std::string& bench, const Suspect& s,
                                const std::string& first_source) {
  std::string out;
  JsonWriter w(out, 0, 4);
  w.begin_object();
  w.key("npu_path");
  w.string(npu);
  w.key("bench_path");
  w.string(bench);
  w.key("suspect");
  w.begin_object();
  w.key("name");
  w.string(s.name);
  w.key("first_source");
  if (first_source.empty())
    w.null();
  else
    w.string(first_source);
  if (s.noise.fitted) {
    w.key("noise");
    w.begin_object();
    for (const auto& [k, v] : {std::pair<const char*, double>{"typical_increment", s.noise.typical_increment},
                               {"base", s.noise.base},
                               {"spread", s.noise.spread}}) {
      w.key(k);
      w.floating(v);
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace

void write_suspect_next_steps(std::vector<Suspect>* suspects, const NextStepsInput& in) {
  if (suspects->empty()) return;
  const std::string root = absolute_path(in.folder);
  std::string first_source;
  for (const Suspect& s : *suspects)
    if (s.source && s.tier == 0) {
      first_source = s.name + ": " + s.reason;
      break;
    }
  for (size_t i = 0; i < suspects->size(); ++i) {
    Suspect& s = (*suspects)[i];
    if (s.source) continue;  // the answer itself
    const std::string api = in.framework == "pytorch" ? op_generate_api(s.name) : "";
    const bool redump = s.name != in.checked_suspect;
    if (!redump && api.empty()) continue;
    const std::string name = suspect_folder(i, suspects->size(), s);
    const std::string dir = join_path(root, name);
    make_dirs(dir, "next steps folder");
    if (redump) {
      std::string dumps[2];
      for (int k = 0; k < 2; ++k) {
        const std::string run = k == 0 ? "npu" : "bench";
        RedumpScope scope;
        scope.entry = s.name;
        scope.step = s.step;
        scope.rank = s.rank;
        scope.dump_path = join_path(dir, "dump_" + run);
        dumps[k] = redump_json(scope.dump_path, s);
        const std::string path = join_path(dir, "config_" + run + ".json");
        write_file_atomically(path, redump_config_json(scope));
        (k == 0 ? s.next_steps.redump_config_npu : s.next_steps.redump_config_bench) = path;
      }
      s.next_steps.compare_json = join_path(dir, "compare.json");
      write_file_atomically(s.next_steps.compare_json,
                            redump_compare_json(dumps[0], dumps[1], s, first_source));
    }
    if (api.empty()) continue;
    opgen::OpConfig op;
    op.dump_json_path = absolute_path(in.npu_json);
    op.api_name = api;
    op.extract_api_path = join_path(dir, api + ".json");
    op.propagation = s.forward ? "forward" : "backward";
    op.data_mode = in.tensor_data ? "real_data" : "random_data";
    s.next_steps.config_op = join_path(dir, "config_op.json");
    write_file_atomically(s.next_steps.config_op, opgen::config_op_json(op));
    // The op script replaces it with its verdict; until then the report loads this and shows none.
    write_file_atomically(join_path(dir, "op_verdict.js"),
                          "// op_generate's verdict, once its script has run\n");
  }
}

std::string next_steps_line(const Suspect& s, const std::string& framework) {
  const SuspectNextSteps& n = s.next_steps;
  if (n.empty()) return "";
  std::string line = "Next step for " + s.name + ": ";
  if (!n.redump_config_npu.empty()) {
    line += "re-dump it in tensor mode: train the NPU run with " + n.redump_config_npu +
            " and the bench run with " + n.redump_config_bench + ", then: msprobe -f " + framework +
            " compare -i " + n.compare_json + " -o " + join_path(folder_of(n.compare_json), "compare");
  }
  if (!n.config_op.empty()) {
    if (!n.redump_config_npu.empty()) line += "; ";
    line += "reproduce it alone: msprobe -f pytorch op_generate -i " + n.config_op + " -o " +
            folder_of(n.config_op);
  }
  return line + ".";
}

}  // namespace compare
}  // namespace msprobe
