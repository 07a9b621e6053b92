// MD5 written from RFC 1321: 64-byte blocks, four rounds of 16 steps, little-endian words.
#include "msprobe/stats/md5.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace msprobe {
namespace {

// Per-step left rotations and the sine-derived constants of RFC 1321 §3.4.
constexpr uint32_t kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
constexpr uint32_t kK[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

inline uint32_t rotl(uint32_t x, uint32_t c) { return (x << c) | (x >> (32 - c)); }

// One of the 64 steps, with its function, word index and constants known at compile time, so
// that the whole block compiles to straight-line code (the register rotation a <- d <- c <- b
// disappears once unrolled). About twice as fast as a loop over the steps.
template <int I>
inline void step(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, const uint32_t* m) {
  uint32_t f;
  int g;
  if constexpr (I < 16) {
    f = d ^ (b & (c ^ d));  // (b & c) | (~b & d)
    g = I;
  } else if constexpr (I < 32) {
    f = c ^ (d & (b ^ c));  // (d & b) | (~d & c)
    g = (5 * I + 1) % 16;
  } else if constexpr (I < 48) {
    f = b ^ c ^ d;
    g = (3 * I + 5) % 16;
  } else {
    f = c ^ (b | ~d);
    g = (7 * I) % 16;
  }
  const uint32_t next = b + rotl(a + f + kK[I] + m[g], kShift[I]);
  a = d;
  d = c;
  c = b;
  b = next;
}

template <int... I>
inline void all_steps(std::integer_sequence<int, I...>, uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d,
                      const uint32_t* m) {
  (step<I>(a, b, c, d, m), ...);
}

}  // namespace

Md5::Md5() : h_{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476} {}

void Md5::block(const unsigned char* p) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) {
    m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
           (uint32_t)p[4 * i + 3] << 24;
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3];
  all_steps(std::make_integer_sequence<int, 64>{}, a, b, c, d, m);
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
}

void Md5::update(const void* data, size_t len) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  total_ += len;
  if (buf_len_) {
    size_t take = std::min(len, 64 - buf_len_);
    std::memcpy(buf_ + buf_len_, p, take);
    buf_len_ += take;
    p += take;
    len -= take;
    if (buf_len_ < 64) return;
    block(buf_);
    buf_len_ = 0;
  }
  for (; len >= 64; p += 64, len -= 64) block(p);
  std::memcpy(buf_, p, len);
  buf_len_ = len;
}

std::string Md5::hex_digest() {
  const uint64_t bits = total_ * 8;
  const unsigned char pad = 0x80;
  update(&pad, 1);
  const unsigned char zero[64] = {0};
  update(zero, (buf_len_ <= 56) ? 56 - buf_len_ : 120 - buf_len_);
  unsigned char len_le[8];
  for (int i = 0; i < 8; ++i) len_le[i] = (unsigned char)(bits >> (8 * i));
  update(len_le, 8);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (uint32_t w : h_) {
    for (int i = 0; i < 4; ++i) {
      unsigned char byte = (unsigned char)(w >> (8 * i));
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  }
  return out;
}

}  // namespace msprobe
