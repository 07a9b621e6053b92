#include "msprobe/jobs/grad_compare_job.h"

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"

namespace msprobe {
namespace grad {

GradCompareOutput run_grad_compare(const std::string& rank_dir1, const std::string& rank_dir2,
                                   const std::string& out_dir) {
  GradCompareOutput out;
  out.similarities = compare_rank_dirs(rank_dir1, rank_dir2);
  out.divergence = find_grad_divergence(out.similarities);
  out.line = divergence_line(out.divergence);
  make_dirs(out_dir, "GradComparator output_path");
  out.csv_path = join_path(out_dir, "similarities.csv");
  out.json_path = join_path(out_dir, "grad_divergence.json");
  write_file_atomically(out.csv_path, similarities_csv(out.similarities));
  write_file_atomically(out.json_path, divergence_json(out.divergence, out.similarities));
  return out;
}

}  // namespace grad
}  // namespace msprobe
