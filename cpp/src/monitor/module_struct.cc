#include "msprobe/monitor/module_struct.h"

#include "msprobe/base/atomic_file.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {
namespace monitor {

void write_module_struct(const std::string& path,
                         const std::vector<std::pair<std::string, ModuleStruct>>& modules) {
  std::string out;
  if (modules.empty()) {
    out = "{}";
  } else {
    JsonWriter w(out, 0, 2);
    w.begin_object();
    for (const auto& [module, parts] : modules) {
      w.key(module);
      w.begin_object();
      for (const auto& [part, fields] : parts) {
        w.key(part);
        w.begin_object();
        for (const auto& [k, v] : fields) {
          w.key(k);
          w.string(v);
        }
        w.end_object();
      }
      w.end_object();
    }
    w.end_object();
  }
  write_file_atomically(path, out);
}

}  // namespace monitor
}  // namespace msprobe
