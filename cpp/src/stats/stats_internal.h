// Internal switches of the statistics kernels, for tests and benchmarks.
#pragma once

namespace msprobe {

// true: use the portable (16-byte vector) kernels even where AVX2 is available.
void stats_force_portable_kernels(bool on);

}  // namespace msprobe
