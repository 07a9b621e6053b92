#include "msprobe/base/cpu_features.h"

#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define MSPROBE_CPUID_X86 1
#endif

namespace msprobe {
namespace {

#ifdef MSPROBE_CPUID_X86
// XCR0: which register states the OS saves on a context switch (bits 1 and 2: XMM and YMM).
unsigned long long xcr0() {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}
#endif

CpuFeatures ask_cpu() {
  CpuFeatures f;
#ifdef MSPROBE_CPUID_X86
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  f.sse41 = (c >> 19) & 1;
  f.pclmul = (c >> 1) & 1;
  const bool osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
  const bool ymm_saved = osxsave && (xcr0() & 6) == 6;
  f.fma = ymm_saved && ((c >> 12) & 1);
  f.f16c = ymm_saved && ((c >> 29) & 1);
  unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (avx && ymm_saved && max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    f.avx2 = (b >> 5) & 1;
    f.vpclmulqdq = f.avx2 && ((c >> 10) & 1);
  }
#endif
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = ask_cpu();
  return f;
}

bool check_simd_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("MSPROBE_CHECK_SIMD");
    const CpuFeatures& f = cpu_features();
    return f.avx2 && f.f16c && !(env && env[0] == '0');
  }();
  return on;
}

}  // namespace msprobe
