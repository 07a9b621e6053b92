// numpy's floating-point precisions and their arithmetic, for code that must reproduce numpy
// results bit for bit: a value of precision X is computed in X's arithmetic (fp16: held in
// float, rounded to fp16 after every operation, as numpy's float16 loops do).
#pragma once
#include <cstdint>

#include "msprobe/tensor/half.h"

namespace msprobe {
namespace numpy {

// Ordered by numpy's promotion: max_prec is the result precision of a binary operation.
enum class Prec : uint8_t { kHalf = 0, kFloat = 1, kDouble = 2 };

template <Prec P>
struct Arith;
template <>
struct Arith<Prec::kHalf> {
  using S = float;  // fp16 values are held in float
  static inline float rnd(float x) { return round_to_half(x); }
  static inline float from(double x) { return rnd((float)x); }
  static constexpr double kEps = 0.0009765625;  // finfo(float16).eps = 2^-10
  static constexpr double kMax = 65504.0;
};
template <>
struct Arith<Prec::kFloat> {
  using S = float;
  static inline float rnd(float x) { return x; }
  static inline float from(double x) { return (float)x; }
  static constexpr double kEps = 1.1920928955078125e-07;  // 2^-23
  static constexpr double kMax = 3.4028234663852886e+38;
};
template <>
struct Arith<Prec::kDouble> {
  using S = double;
  static inline double rnd(double x) { return x; }
  static inline double from(double x) { return x; }
  static constexpr double kEps = 2.220446049250313e-16;  // 2^-52
  static constexpr double kMax = 1.7976931348623157e+308;
};

constexpr Prec max_prec(Prec a, Prec b) { return (uint8_t)a > (uint8_t)b ? a : b; }

// The type a value of precision P is held in (fp16 in float).
template <Prec P>
using Storage = typename Arith<P>::S;

// Converts a value held in storage type of precision `From` to precision `To` (numpy astype).
template <Prec To, typename V>
inline Storage<To> cvt(V x) {
  return Arith<To>::from((double)x);
}
template <>
inline float cvt<Prec::kFloat, float>(float x) {
  return x;
}
template <>
inline double cvt<Prec::kDouble, float>(float x) {
  return x;
}
template <>
inline double cvt<Prec::kDouble, double>(double x) {
  return x;
}
template <>
inline float cvt<Prec::kHalf, float>(float x) {
  return Arith<Prec::kHalf>::rnd(x);
}

// x rounded to precision P, as a double (numpy's astype then back to float64).
template <Prec P>
inline double round_to(double x) {
  return (double)Arith<P>::from(x);
}

// The same with the precision known at run time.
inline double round_to(Prec p, double x) {
  switch (p) {
    case Prec::kHalf: return round_to<Prec::kHalf>(x);
    case Prec::kFloat: return round_to<Prec::kFloat>(x);
    default: return x;
  }
}

// finfo(P).eps and finfo(P).max.
inline double eps_of(Prec p) {
  switch (p) {
    case Prec::kHalf: return Arith<Prec::kHalf>::kEps;
    case Prec::kFloat: return Arith<Prec::kFloat>::kEps;
    default: return Arith<Prec::kDouble>::kEps;
  }
}
inline double max_of(Prec p) {
  switch (p) {
    case Prec::kHalf: return Arith<Prec::kHalf>::kMax;
    case Prec::kFloat: return Arith<Prec::kFloat>::kMax;
    default: return Arith<Prec::kDouble>::kMax;
  }
}

}  // namespace numpy
}  // namespace msprobe
