// Run-time SIMD selection and the F16C fp16 widening of the element reader.
#include "msprobe/tensor/element_reader.h"

#include "msprobe/base/cpu_features.h"

#include <cstdlib>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#define MSPROBE_HAVE_X86_SIMD 1
#endif

namespace msprobe {

#ifdef MSPROBE_HAVE_X86_SIMD
bool avx2_f16c_enabled() {
  static const bool ok = [] {
    const char* env = std::getenv("MSPROBE_CHECK_SIMD");
    return __builtin_cpu_supports("avx2") && cpu_has_f16c() &&
           !(env && env[0] == '0');
  }();
  return ok;
}

__attribute__((target("avx2,f16c"))) static void halves_to_floats_f16c(const uint16_t* src,
                                                                      int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = half_to_float(src[i]);
}

void halves_to_floats(const uint16_t* src, int64_t n, float* dst) {
  if (avx2_f16c_enabled()) return halves_to_floats_f16c(src, n, dst);
  for (int64_t i = 0; i < n; ++i) dst[i] = half_to_float(src[i]);
}
#else
bool avx2_f16c_enabled() { return false; }
void halves_to_floats(const uint16_t* src, int64_t n, float* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = half_to_float(src[i]);
}
#endif

}  // namespace msprobe
