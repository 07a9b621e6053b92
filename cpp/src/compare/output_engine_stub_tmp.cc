// TEMPORARY (branch output): stands in for compare_dumps until the compare engine is merged;
// delete this file when merging the compare branch's engine.
#include "msprobe/base/error.h"
#include "msprobe/compare/compare_run.h"

namespace msprobe {
namespace compare {

CompareTable compare_dumps(const std::string&, const std::string&, const CompareOptions&, ProgressFn) {
  throw InvalidInput("the compare engine is not built into this branch yet");
}

}  // namespace compare
}  // namespace msprobe
