// The portable copy of the statistics kernel (16-byte vectors: SSE2 / NEON baseline).
#include "stats_kernel.h"

namespace msprobe {
namespace stats_kernel {

template <DType D, bool kFinite>
void block_portable(const void* raw, int64_t n, Acc<typename Kind<D>::V>& a, typename Kind<D>::V* scratch) {
  block_impl<D, kFinite, 16>(raw, n, a, scratch);
}

MSPROBE_STATS_INSTANTIATE(block_portable)

}  // namespace stats_kernel
}  // namespace msprobe
