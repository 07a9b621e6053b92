// CPU features asked at run time where __builtin_cpu_supports cannot be used by every compiler
// (clang 14 does not know "f16c").
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace msprobe {

// F16C (fp16 <-> fp32 conversions): CPUID leaf 1, ECX bit 29.
inline bool cpu_has_f16c() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
#else
  return false;
#endif
}

}  // namespace msprobe
