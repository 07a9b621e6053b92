#include "msprobe/runut/input_rules.h"

#include <cstring>

namespace msprobe {
namespace runut {

void round_to_hf32(float* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    int32_t v;
    std::memcpy(&v, &data[i], 4);
    v = ((v >> 11) + 1) >> 1;  // arithmetic shifts on the signed view
    const uint32_t u = (uint32_t)v << 12;
    std::memcpy(&data[i], &u, 4);
  }
}

}  // namespace runut
}  // namespace msprobe
