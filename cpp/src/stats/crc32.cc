// zlib-compatible CRC-32 (reflected polynomial 0xEDB88320), written for this project.
//
// Two implementations, chosen at run time:
//  * slice-by-8 tables: portable, ~2-3 GB/s;
//  * carry-less multiplication folding (x86 PCLMULQDQ, and VPCLMULQDQ on 256-bit vectors when
//    the CPU has it): 4 or 8 independent 128-bit lanes are folded forward over the buffer, then
//    reduced to one 128-bit remainder whose CRC is taken with the tables.
//
// Folding math (reflected bit order): a 128-bit register holds a polynomial of degree < 128
// where bit i is the coefficient of x^(127-i). Splitting it as X = H*x^64 + L (H = low qword),
// moving X forward by D bits is X*x^D = H*x^(64+D) + L*x^D. With constants
// K1 = x^(D+32) mod P and K2 = x^(D-32) mod P stored so that coefficient k sits at bit 32-k,
// clmul(H, K1) xor clmul(L, K2) is a register congruent to X*x^D, of degree < 128.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "crc32_internal.h"
#include "msprobe/base/cpu_features.h"
#include "msprobe/stats/tensor_stats.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(MSPROBE_NO_X86_SIMD)
#include <immintrin.h>
#define MSPROBE_CRC_X86 1
#endif

namespace msprobe {
namespace {

constexpr uint32_t kPolyReflected = 0xEDB88320u;

struct Tables {
  uint32_t t[8][256];
};

constexpr Tables make_tables() {
  Tables tb{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ kPolyReflected : c >> 1;
    tb.t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) {
      const uint32_t prev = tb.t[s - 1][i];
      tb.t[s][i] = (prev >> 8) ^ tb.t[0][prev & 0xffu];
    }
  }
  return tb;
}

constexpr Tables kTables = make_tables();

// Raw (no pre/post inversion) table CRC.
uint32_t crc_tables(uint32_t state, const uint8_t* p, size_t len) {
  const auto& t = kTables.t;
  while (len && (reinterpret_cast<uintptr_t>(p) & 7u)) {
    state = (state >> 8) ^ t[0][(state ^ *p++) & 0xffu];
    --len;
  }
  while (len >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    lo = __builtin_bswap32(lo);
    hi = __builtin_bswap32(hi);
#endif
    lo ^= state;
    state = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^ t[4][lo >> 24] ^
            t[3][hi & 0xffu] ^ t[2][(hi >> 8) & 0xffu] ^ t[1][(hi >> 16) & 0xffu] ^ t[0][hi >> 24];
    p += 8;
    len -= 8;
  }
  while (len--) state = (state >> 8) ^ t[0][(state ^ *p++) & 0xffu];
  return state;
}

// x^e mod P (normal bit order, bit k = coefficient of x^k), stored reflected at bit 32-k.
constexpr uint64_t fold_constant(unsigned e) {
  constexpr uint64_t kPoly = 0x104C11DB7ull;
  uint64_t r = 1;
  for (unsigned i = 0; i < e; ++i) {
    r <<= 1;
    if (r & (1ull << 32)) r ^= kPoly;
  }
  uint64_t k = 0;
  for (unsigned i = 0; i < 32; ++i) {
    if (r & (1ull << i)) k |= 1ull << (32 - i);
  }
  return k;
}

#ifdef MSPROBE_CRC_X86

constexpr uint64_t kK1_128 = fold_constant(128 + 32), kK2_128 = fold_constant(128 - 32);
constexpr uint64_t kK1_512 = fold_constant(512 + 32), kK2_512 = fold_constant(512 - 32);
constexpr uint64_t kK1_1024 = fold_constant(1024 + 32), kK2_1024 = fold_constant(1024 - 32);
static_assert(kK1_512 == 0x154442bd4ull && kK2_512 == 0x1c6e41596ull, "fold constants");

#define MSPROBE_TARGET_PCLMUL __attribute__((target("pclmul,sse4.1")))
#define MSPROBE_TARGET_VPCLMUL __attribute__((target("vpclmulqdq,pclmul,avx2,sse4.1")))

MSPROBE_TARGET_PCLMUL inline __m128i fold128(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

// Reduces one 128-bit register plus the remaining bytes (< 16 handled by tables) to a state.
MSPROBE_TARGET_PCLMUL uint32_t finish128(__m128i x, const uint8_t* p, size_t len) {
  const __m128i k128 = _mm_set_epi64x((long long)kK2_128, (long long)kK1_128);
  while (len >= 16) {
    x = _mm_xor_si128(fold128(x, k128), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    p += 16;
    len -= 16;
  }
  alignas(16) uint8_t buf[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(buf), x);
  uint32_t state = crc_tables(0, buf, 16);
  return crc_tables(state, p, len);
}

// len >= 64.
MSPROBE_TARGET_PCLMUL uint32_t crc_pclmul(uint32_t state, const uint8_t* p, size_t len) {
  const __m128i* q = reinterpret_cast<const __m128i*>(p);
  __m128i x0 = _mm_loadu_si128(q + 0), x1 = _mm_loadu_si128(q + 1);
  __m128i x2 = _mm_loadu_si128(q + 2), x3 = _mm_loadu_si128(q + 3);
  x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)state));
  p += 64;
  len -= 64;
  const __m128i k512 = _mm_set_epi64x((long long)kK2_512, (long long)kK1_512);
  while (len >= 64) {
    q = reinterpret_cast<const __m128i*>(p);
    x0 = _mm_xor_si128(fold128(x0, k512), _mm_loadu_si128(q + 0));
    x1 = _mm_xor_si128(fold128(x1, k512), _mm_loadu_si128(q + 1));
    x2 = _mm_xor_si128(fold128(x2, k512), _mm_loadu_si128(q + 2));
    x3 = _mm_xor_si128(fold128(x3, k512), _mm_loadu_si128(q + 3));
    p += 64;
    len -= 64;
  }
  const __m128i k128 = _mm_set_epi64x((long long)kK2_128, (long long)kK1_128);
  __m128i x = _mm_xor_si128(fold128(x0, k128), x1);
  x = _mm_xor_si128(fold128(x, k128), x2);
  x = _mm_xor_si128(fold128(x, k128), x3);
  return finish128(x, p, len);
}

MSPROBE_TARGET_VPCLMUL inline __m256i fold256(__m256i x, __m256i k) {
  return _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00), _mm256_clmulepi64_epi128(x, k, 0x11));
}

// len >= 128: four 256-bit registers = eight 128-bit lanes, folded by 1024 bits.
MSPROBE_TARGET_VPCLMUL uint32_t crc_vpclmul(uint32_t state, const uint8_t* p, size_t len) {
  const __m256i* q = reinterpret_cast<const __m256i*>(p);
  __m256i y0 = _mm256_loadu_si256(q + 0), y1 = _mm256_loadu_si256(q + 1);
  __m256i y2 = _mm256_loadu_si256(q + 2), y3 = _mm256_loadu_si256(q + 3);
  y0 = _mm256_xor_si256(y0, _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)state)));
  p += 128;
  len -= 128;
  const __m256i k1024 =
      _mm256_set_epi64x((long long)kK2_1024, (long long)kK1_1024, (long long)kK2_1024, (long long)kK1_1024);
  while (len >= 128) {
    q = reinterpret_cast<const __m256i*>(p);
    y0 = _mm256_xor_si256(fold256(y0, k1024), _mm256_loadu_si256(q + 0));
    y1 = _mm256_xor_si256(fold256(y1, k1024), _mm256_loadu_si256(q + 1));
    y2 = _mm256_xor_si256(fold256(y2, k1024), _mm256_loadu_si256(q + 2));
    y3 = _mm256_xor_si256(fold256(y3, k1024), _mm256_loadu_si256(q + 3));
    p += 128;
    len -= 128;
  }
  // The eight lanes in stream order: y0.lo, y0.hi, y1.lo, ... y3.hi. Fold them one by one.
  const __m128i k128 = _mm_set_epi64x((long long)kK2_128, (long long)kK1_128);
  __m128i lanes[8] = {
      _mm256_castsi256_si128(y0),      _mm256_extracti128_si256(y0, 1), _mm256_castsi256_si128(y1),
      _mm256_extracti128_si256(y1, 1), _mm256_castsi256_si128(y2),      _mm256_extracti128_si256(y2, 1),
      _mm256_castsi256_si128(y3),      _mm256_extracti128_si256(y3, 1),
  };
  __m128i x = lanes[0];
  for (int i = 1; i < 8; ++i) x = _mm_xor_si128(fold128(x, k128), lanes[i]);
  return finish128(x, p, len);
}

enum class CrcImpl { kTables, kPclmul, kVpclmul };

CrcImpl detect_impl() {
  const CpuFeatures& f = cpu_features();
  if (f.vpclmulqdq && f.avx2 && f.pclmul && f.sse41) return CrcImpl::kVpclmul;
  if (f.pclmul && f.sse41) return CrcImpl::kPclmul;
  return CrcImpl::kTables;
}

#endif  // MSPROBE_CRC_X86

int best_impl() {
#ifdef MSPROBE_CRC_X86
  static const int impl = static_cast<int>(detect_impl());
  return impl;
#else
  return 0;
#endif
}

}  // namespace

int crc32_best_impl() { return best_impl(); }

uint32_t crc32_update_with(int impl, uint32_t crc, const void* data, size_t len) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t state = ~crc;
  if (impl > best_impl()) impl = best_impl();
#ifdef MSPROBE_CRC_X86
  if (impl == static_cast<int>(CrcImpl::kVpclmul) && len >= 256) return ~crc_vpclmul(state, p, len);
  if (impl != static_cast<int>(CrcImpl::kTables) && len >= 64) return ~crc_pclmul(state, p, len);
#endif
  return ~crc_tables(state, p, len);
}

uint32_t crc32_update(uint32_t crc, const void* data, size_t len) {
  return crc32_update_with(best_impl(), crc, data, len);
}

}  // namespace msprobe
