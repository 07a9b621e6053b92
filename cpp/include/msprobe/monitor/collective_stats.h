// cc_distribution of the training monitor (1.2.1's communication monitoring): statistics of the
// tensors handed to the torch.distributed collectives, aggregated over the calls of a step as
// 1.2.1 does it: the min of the mins and the max of the maxes (Python's min / max: a NaN first
// value stays, a later one is skipped), the norms and the nans added up, the zeros and the means
// averaged over the calls; "id" has no aggregate (NaN). A step's aggregates become rows of the
// writer's "other" prefix, tags "{collective}/rank{R}/{pre|post}_{i}".
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "msprobe/monitor/monitor_stats.h"
#include "msprobe/monitor/monitor_writer.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace monitor {

// A step's aggregates: values[i][j] of tags[i] and ops[j].
struct CollectiveRows {
  std::vector<std::string> tags;
  std::vector<std::vector<double>> values;
};

class CollectiveStats {
 public:
  CollectiveStats(std::vector<std::string> ops, double eps);

  // One call of a collective: tags[i] summarises parts[i], the tensors of one argument (a list
  // argument counts as one tensor made of all of them, as 1.2.1 stacks it). The collective is
  // the text of the tag before its first '/'. Thread-safe.
  void add(const std::vector<std::string>& tags, const std::vector<std::vector<const TensorView*>>& parts);
  // The aggregates since the last take, in 1.2.1's order (collectives in the order they were
  // first ever seen, then their tags in the order first seen in the step), and forgets them.
  CollectiveRows take();
  // take() added to the writer's rows of `prefix`, for its next flush.
  void move_into(MonitorWriter& writer, const std::string& prefix);
  // Forgets the calls not taken yet.
  void clear();

 private:
  struct Sum {
    std::string collective;
    std::vector<double> acc;  // per op
    int64_t calls = 0;
  };
  MonitorStats stats_of(const std::vector<const TensorView*>& parts) const;

  std::vector<MonitorOp> ops_;
  double eps_;
  bool counts_ = false;
  std::mutex mu_;
  std::map<std::string, size_t> collective_order_;  // first ever seen
  std::vector<std::string> tags_;                   // this step's, first seen first
  std::map<std::string, Sum> sums_;
};

}  // namespace monitor
}  // namespace msprobe
