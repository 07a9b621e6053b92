// The AVX2 (+FMA, F16C) copy of the statistics kernel, chosen at run time where
// stats_avx2_available() (msprobe/base/cpu_features.h).
#include "stats_kernel.h"

#ifdef MSPROBE_STATS_X86
namespace msprobe {
namespace stats_kernel {

template <DType D, bool kFinite>
MSPROBE_TARGET_AVX2 __attribute__((flatten)) void block_avx2(const void* raw, int64_t n,
                                                             Acc<typename Kind<D>::V>& a,
                                                             typename Kind<D>::V* scratch) {
  block_impl<D, kFinite, 32>(raw, n, a, scratch);
}

MSPROBE_STATS_INSTANTIATE(block_avx2)

}  // namespace stats_kernel
}  // namespace msprobe
#endif
