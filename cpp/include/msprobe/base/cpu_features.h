// The one place that asks the CPU which instruction sets it has (CPUID and XGETBV, so that every
// compiler builds it: clang 14's __builtin_cpu_supports does not know "f16c"), and the
// environment switches that turn SIMD paths off. Kernels pick their per-ISA copy from here.
#pragma once

namespace msprobe {

struct CpuFeatures {
  bool sse41 = false;
  bool pclmul = false;  // carry-less multiply (CRC folding)
  bool avx2 = false;    // AVX2 and the OS saves the YMM registers
  bool fma = false;
  bool f16c = false;        // fp16 <-> fp32 conversions
  bool vpclmulqdq = false;  // 256-bit carry-less multiply (needs avx2 for its YMM form)
};

// Asked once per process; all false on other architectures.
const CpuFeatures& cpu_features();

// The AVX2 + F16C copies of the element reader and the accuracy metrics: available on this CPU
// and not disabled by MSPROBE_CHECK_SIMD=0 (tests compare both paths).
bool check_simd_enabled();

// The AVX2 + FMA + F16C copy of the statistics kernel.
inline bool stats_avx2_available() {
  const CpuFeatures& f = cpu_features();
  return f.avx2 && f.fma && f.f16c;
}

}  // namespace msprobe
