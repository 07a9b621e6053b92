// Task overflow_check (reference data-dump §1.6, §6.5; 1.2.1's OverflowCheckDataProcessor): which
// entries overflowed, the overflow_nums limit, and what we add beyond 1.2.1: the culprit /
// passed-on distinction, the first-overflow log line and overflow_summary.json per step and rank.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "msprobe/stats/tensor_stats.h"

namespace msprobe {

// 1.2.1's test: a tensor overflowed when its Max or Min is inf or NaN (bool and null statistics
// never do). Our statistics propagate NaN into Max/Min as torch.max does, so this is "any element
// is inf or NaN" for float tensors.
bool stats_overflow(const TensorStats& s);

// kCulprit: the entry produced inf/NaN from finite inputs. kPassedOn: it received inf/NaN (some
// input, argument, parameter or incoming gradient already held one), or it is a recorded
// parameter gradient, which is computed by a backward recorded elsewhere.
enum class OverflowKind { kCulprit, kPassedOn };
const char* overflow_kind_name(OverflowKind k);  // "culprit" / "passed_on"
// inputs: input_args, input_kwargs, parameters (forward) or input (backward: the gradients
// flowing in); outputs: output.
OverflowKind classify_overflow(bool inputs_overflow, bool outputs_overflow);

// One overflowing entry written to dump.json.
struct OverflowEvent {
  std::string entry;  // dump.json entry name
  OverflowKind kind = OverflowKind::kCulprit;
  // The user's code that made the call: innermost frame outside the frameworks and msprobe.
  // For a backward entry, the line of its forward call. Empty when unknown.
  std::string file;
  int64_t line = 0;
  std::string function, text;  // text: the stripped source line
  double time = 0;             // seconds since the Unix epoch (comparable across ranks)
};

// The API (or module) and direction an entry name belongs to, for counting per API:
// "Torch.matmul.0.forward" -> ("Torch.matmul", "forward"), "Module.fc.Linear.backward.1" ->
// ("Module.fc.Linear", "backward"), "Module.fc.Linear.parameters_grad" -> ("Module.fc.Linear",
// "parameters_grad"). A name of another form is its own API with direction "".
struct ApiOfEntry {
  std::string api, direction;
};
ApiOfEntry api_of_entry(const std::string& entry);

class OverflowMonitor {
 public:
  // overflow_nums: stop after that many overflowing entries in the run; -1 = no limit.
  explicit OverflowMonitor(int64_t overflow_nums) : limit_(overflow_nums) {}

  // Counts one overflowing entry (1.2.1's real_overflow_nums, never reset by step()). Returns
  // whether it is the first of the run.
  bool record(OverflowEvent ev);
  // 1.2.1's is_terminated: from now on nothing is collected.
  bool limit_reached() const { return limit_ != -1 && total_ >= limit_; }
  int64_t total() const { return total_; }
  int64_t limit() const { return limit_; }
  int64_t step_count() const { return (int64_t)events_.size(); }
  int64_t step_culprits() const;

  // overflow_summary.json of the current step: the first overflow and the first culprit, every
  // API that overflowed (culprits first, each group in order of first occurrence, with counts)
  // and every overflowing entry in the order found. rank < 0: not distributed (null).
  std::string step_summary_json(const std::string& framework, const std::string& level, int64_t step,
                                int64_t rank) const;
  // Forgets the events of the step (the run's count stays).
  void begin_step() { events_.clear(); }

 private:
  int64_t limit_;
  int64_t total_ = 0;
  std::vector<OverflowEvent> events_;  // of the current step
};

// The log line for the first overflow of a run.
std::string first_overflow_message(const OverflowEvent& ev, int64_t step, int64_t rank);

}  // namespace msprobe
