// Inline vector kernels widening fp16 / bf16 bits to float, for the per-ISA copies of the
// statistics and the element reader to inline (VB: vector width in bytes, 16 or 32).
// Exact for every pattern, so every copy gives the same floats.
#pragma once
#include <cstdint>
#include <cstring>

#include "msprobe/tensor/half.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(MSPROBE_NO_X86_SIMD)
#define MSPROBE_HALF_X86 1
#include <immintrin.h>
#endif

namespace msprobe {
namespace half_kernels {

template <int VB>
struct Lanes;
template <>
struct Lanes<16> {
  typedef uint32_t vu __attribute__((vector_size(16)));
  typedef uint16_t vh __attribute__((vector_size(8)));
  typedef float vf __attribute__((vector_size(16)));
};
template <>
struct Lanes<32> {
  typedef uint32_t vu __attribute__((vector_size(32)));
  typedef uint16_t vh __attribute__((vector_size(16)));
  typedef float vf __attribute__((vector_size(32)));
};

template <typename T, typename P>
inline __attribute__((always_inline)) T load_as(const P* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename To, typename From>
inline __attribute__((always_inline)) To bits_as(const From& f) {
  static_assert(sizeof(To) == sizeof(From), "size");
  To t;
  std::memcpy(&t, &f, sizeof(t));
  return t;
}

// fp16 -> fp32, branch-free: rebias the exponent, fix inf/NaN and renormalise subnormals.
template <int VB>
inline __attribute__((always_inline)) void halves_to_floats_vec(const uint16_t* in, float* out, int64_t n) {
  typedef typename Lanes<VB>::vu vu;
  typedef typename Lanes<VB>::vh vh;
  typedef typename Lanes<VB>::vf vf;
  constexpr int L = VB / 4;
  int64_t i = 0;
  const vu shifted_exp = vu{} + (0x7c00u << 13);
  for (; i + L <= n; i += L) {
    const vu h = __builtin_convertvector(load_as<vh>(in + i), vu);
    vu o = (h & 0x7fffu) << 13;
    const vu e = o & shifted_exp;
    o += (127u - 15u) << 23;
    o += (vu)(e == shifted_exp) & ((128u - 16u) << 23);  // inf / NaN
    const vu denorm = (vu)(e == 0u);                     // zero / subnormal: renormalise
    o += denorm & (1u << 23);
    // Subtracting 2^-14 (or 0) is exact and turns the renormalised subnormal into its value.
    const vf f = bits_as<vf>(o) - bits_as<vf>(vu(denorm & (113u << 23)));
    const vu r = bits_as<vu>(f) | ((h & 0x8000u) << 16);
    std::memcpy(out + i, &r, sizeof(r));
  }
  for (; i < n; ++i) out[i] = half_to_float(load_as<uint16_t>(in + i));
}

// bf16 -> fp32: the bits are the top half of the float.
template <int VB>
inline __attribute__((always_inline)) void bf16s_to_floats_vec(const uint16_t* in, float* out, int64_t n) {
  typedef typename Lanes<VB>::vu vu;
  typedef typename Lanes<VB>::vh vh;
  constexpr int L = VB / 4;
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const vu b = __builtin_convertvector(load_as<vh>(in + i), vu) << 16;
    std::memcpy(out + i, &b, sizeof(b));
  }
  for (; i < n; ++i) out[i] = bf16_to_float(load_as<uint16_t>(in + i));
}

#ifdef MSPROBE_HALF_X86
// fp16 -> fp32 with F16C, 8 at a time (only where cpu_features().f16c).
__attribute__((target("avx2,f16c"))) inline void halves_to_floats_f16c(const uint16_t* in, float* out,
                                                                       int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = half_to_float(load_as<uint16_t>(in + i));
}
#endif

}  // namespace half_kernels
}  // namespace msprobe
