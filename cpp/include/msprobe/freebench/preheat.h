// free_benchmark's preheat (1.2.1's PreheatHandler and PreheatCounter): step 0 counts each API's
// calls; the next preheat_step steps sample some calls, compare them with a CPU run and move the
// API's ratio threshold (per output dtype) from 2.05 towards the dtype's standard until the CPU
// comparison separates consistent from inconsistent calls.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "msprobe/tensor/dtype.h"

namespace msprobe {
namespace freebench {

class Preheat {
 public:
  Preheat(int64_t preheat_step, int64_t max_sample, bool no_change)
      : preheat_step_(preheat_step), max_sample_(max_sample), no_change_(no_change) {}

  // Step 0 only counts the API's calls (no comparison): returns true there.
  bool counting(const std::string& api, int64_t step);
  // The API's current threshold for outputs of `dtype` (2.05 until it learned one).
  double threshold(const std::string& api, DType dtype);
  // After the comparison of a call in step >= 1: whether this call is one of the step's samples
  // (then the caller compares it with a CPU run and calls record()).
  bool take_sample(const std::string& api, int64_t step);
  // A sample's result: the call's largest ratio, whether the CPU run agreed, the output's first
  // dtype. Moves the thresholds once the step's samples are in.
  void record(const std::string& api, DType dtype, double max_ratio, bool cpu_consistent);
  // The number of samples per step (for the log line) and the calls counted at step 0.
  int64_t calls_per_step(const std::string& api) const;
  int64_t called(const std::string& api) const;

 private:
  int64_t samples_per_step(const std::string& api) const;
  double adjusted(const std::string& api, DType dtype, const std::vector<std::pair<double, bool>>& results);

  int64_t preheat_step_, max_sample_;
  bool no_change_;
  int64_t step_ = 0;
  std::unordered_map<std::string, int64_t> called_, sampled_, per_step_;
  std::unordered_map<std::string, std::map<DType, double>> thresholds_;
  std::unordered_map<std::string, std::map<DType, bool>> preheating_;
  std::unordered_map<std::string, std::map<DType, std::vector<std::pair<double, bool>>>> record_;
};

}  // namespace freebench
}  // namespace msprobe
