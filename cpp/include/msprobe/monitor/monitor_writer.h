// The training monitor's statistics of one rank, from the tensors to the files (1.2.1's
// TrainerMon csv output, docs 19):
//   {dir}/{prefix}_{first}-{last}.csv   prefix actv, actv_grad, grad_reduced, grad_unreduced,
//                                       exp_avg, exp_avg_sq, param; first-last the steps of the
//                                       file (step_count_per_record steps a file)
// Tensors are summarised when they are added (activations may change in place later), in one
// pass each (monitor_stats.h); a step's rows of a prefix are written by one flush, which also
// runs the alert rules over every value.
#pragma once
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "msprobe/monitor/monitor_config.h"
#include "msprobe/monitor/monitor_stats.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {
namespace monitor {

// A value that broke an alert rule.
struct MonitorAlert {
  std::string tag;  // "0:block.fc1_0/rank0/output", as 1.2.1 names it
  std::string op;   // the statistic
  int64_t step = 0;
  double value = 0;
  double baseline = 0;  // the running mean it was compared with
  std::string rule;     // "AnomalyTurbulence"
  int64_t call_id = 0;  // order of the tag in its step (1.2.1's call_id)
  double threshold = 0;
  // 1.2.1's words ("Rule AnomalyTurbulence reports anomaly signal in ('tag', 'op') at step N."),
  // kept in anomaly.json.
  std::string message;
  // Our log line: rank, step, module or parameter, statistic, value and the mean it left.
  std::string line;
};

// What one flush did.
struct MonitorFlush {
  std::string prefix;
  int64_t step = 0;
  std::string csv_path;  // empty when nothing was written (no rows, or not csv)
  std::vector<std::string> tags;
  std::vector<std::vector<double>> values;  // values[i][j]: tags[i], ops[j]
  std::vector<MonitorAlert> alerts;
};

struct MonitorWriterOptions {
  std::string dir;  // the rank's folder, made (0750) on the first file
  std::vector<std::string> ops = {"norm"};
  double eps = 1e-8;
  int64_t ndigits = 6;
  int64_t step_count_per_record = 1;
  std::vector<AlertRule> rules;
  bool csv = true;   // write the csv files (format csv)
  int64_t rank = 0;  // named in alert lines
};

class MonitorWriter {
 public:
  explicit MonitorWriter(MonitorWriterOptions options);

  // Summarises tensors[i] (nullptr: not a tensor, every statistic NaN) for tags[i] under
  // `prefix`. Thread-safe (backward hooks may run on autograd threads). Rows are flushed in the
  // order they were first added, except that the rows of one non-empty `group` stay together at
  // the place of the group's first row (1.2.1 writes a module's activations of every
  // micro-batch one after the other: "fc1_0", "fc1_1", then "fc2_0", ...).
  void add(const std::string& prefix, const std::vector<std::string>& tags,
           const std::vector<const TensorView*>& tensors, const std::string& group = "");
  // mg_direction: the statistics of each parameter's sign_matches(grads[i], exp_avgs[i])
  // (sign_matches.h; exp_avgs[i] nullptr: 1.0), a 0-d value as 1.2.1 summarises it, for tags[i].
  void add_sign_matches(const std::string& prefix, const std::vector<std::string>& tags,
                        const std::vector<const TensorView*>& grads,
                        const std::vector<const TensorView*>& exp_avgs);
  // Values already summarised (values[i][j]: tags[i], ops[j]; missing ones NaN) for tags[i]
  // under `prefix`, as add keeps them. numbered false: the tags get no call id (-1; 1.2.1 numbers
  // module and parameter tags only, not the collectives').
  void add_values(const std::string& prefix, const std::vector<std::string>& tags,
                  std::vector<std::vector<double>> values, const std::string& group = "",
                  bool numbered = true);
  // Writes the rows added under `prefix` since the last flush as `step`, checks the alert rules,
  // and forgets them. The csv row of a tag is named by the text before its first '/'; tags of
  // one name fill one row in order ("input" then "output").
  MonitorFlush flush(const std::string& prefix, int64_t step);
  // The end of a monitored step: the flushes begun by begin_flush_step (waited for), then
  // flush(prefix, step) of each prefix in order, then end_step(). Returns the flushes that had
  // rows; rethrows an error of the background flush.
  std::vector<MonitorFlush> flush_step(const std::vector<std::string>& prefixes, int64_t step);
  // Takes the rows of each prefix now and flushes them as `step` on another thread: the csv
  // files are written while the optimizer steps, and flush_step collects the result. Rows added
  // after this call wait for flush_step.
  void begin_flush_step(const std::vector<std::string>& prefixes, int64_t step);
  // The rows added under `prefix` and not yet flushed (tags and values only; nothing written).
  MonitorFlush pending(const std::string& prefix);
  // Ends a step: call ids count from 0 again (1.2.1 numbers the tags of a step in the order
  // they are seen, call_id in its anomaly files).
  void end_step();
  // Drops every row not flushed (monitoring stopped), once a background flush is done.
  void clear();

  const MonitorWriterOptions& options() const { return o_; }

 private:
  struct Pending {
    std::vector<std::string> tags;
    std::vector<std::vector<double>> values;
    std::map<std::string, size_t> index;  // a tag added again in a step replaces its values
    std::vector<size_t> rank;             // per row: its group's place (rows of no group: their own)
    std::map<std::string, size_t> groups;
    size_t next_rank = 0;
    bool grouped = false;
    // The rows in flush order (the rows of a group together, groups in first-seen order).
    void order();
  };
  struct Running {
    double avg = 0;
    int64_t count = 0;
  };
  // Takes the rows of `prefix`, in flush order.
  Pending take(const std::string& prefix);
  // A copy of the step's call ids so far.
  std::map<std::string, int64_t> call_ids();
  // Checks the alert rules on taken rows and writes them.
  MonitorFlush flush_rows(const std::string& prefix, int64_t step, Pending rows,
                          const std::map<std::string, int64_t>& call_ids);
  // Waits for the background flush; its flushes go to done_.
  void settle();
  std::vector<std::string> header(const std::string& prefix, bool vpp) const;
  std::string write_csv(const std::string& prefix, int64_t step, const Pending& rows) const;

  MonitorWriterOptions o_;
  std::vector<MonitorOp> ops_;
  bool counts_ = false;  // zeros or nans asked for
  std::mutex mu_;
  std::map<std::string, Pending> pending_;
  std::map<std::pair<std::string, std::string>, Running> running_;  // (tag, op)
  std::map<std::string, int64_t> call_ids_;
  int64_t next_call_id_ = 0;
  std::vector<MonitorFlush> done_;  // background flushes not yet returned
  // Last member: destroyed first, so a background flush finishes before what it uses goes.
  std::future<std::vector<MonitorFlush>> background_;
};

// numpy.round(value, ndigits) as pandas' DataFrame.round applies it (scale, round half to even,
// unscale), then the text pandas' to_csv writes ("nan" for NaN, Python's repr otherwise).
std::string monitor_csv_number(double value, int64_t ndigits);

}  // namespace monitor
}  // namespace msprobe
