// Keeps the overflowing kernels of a MindSpore tensor dump: see kernel_overflow_filter.h.
// A folder is decided as a whole: every file is read first, then the files of kernels without
// inf/NaN are removed. Files already kept are read again by later passes (they are few).
#include "msprobe/kernel/kernel_overflow_filter.h"

#include <unistd.h>

#include <map>

#include "kernel_dump_files.h"
#include "msprobe/dump/overflow_monitor.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/stats/tensor_stats.h"

namespace msprobe {

namespace {
void filter_folder(const std::string& dir, bool final_pass, KernelOverflowResult& res) {
  FolderDumpNames names(dir);
  struct Kernel {
    bool overflow = false;
    std::vector<std::string> paths;
  };
  std::map<std::string, Kernel> kernels;
  for (const std::string& file : list_dir(dir, false)) {
    if (file.size() < 4 || file.compare(file.size() - 4, 4, ".npy") != 0) continue;
    const std::string path = dir + "/" + file;
    std::string original;
    DumpName n;
    if (!names.parse(file, original, n)) {
      res.problems.push_back(path + ": not named like a MindSpore dump file; kept as it is");
      continue;
    }
    NpyFile npy(path);
    if (npy.status() == NpyFile::Status::kTruncated && !final_pass) return;  // in progress: later
    Kernel& k = kernels[n.op_type + "." + n.op_name + "." + n.task + "." + n.stream];
    k.paths.push_back(path);
    if (npy.status() != NpyFile::Status::kOk) {
      res.problems.push_back(path + ": " + npy.error() + "; its kernel is kept");
      k.overflow = true;
      continue;
    }
    if (!k.overflow && stats_overflow(compute_stats(npy.view(), false))) k.overflow = true;
  }
  for (const auto& [key, k] : kernels) {
    if (k.overflow) {
      ++res.kept_kernels;
      continue;
    }
    for (const std::string& p : k.paths)
      if (::unlink(p.c_str()) == 0) ++res.removed;
  }
}
}  // namespace

KernelOverflowResult filter_kernel_overflow_dump(const std::string& dump_path, bool final_pass) {
  KernelOverflowResult res;
  for_each_iteration_folder(dump_path, [&](const std::string& dir) { filter_folder(dir, final_pass, res); });
  return res;
}

}  // namespace msprobe
