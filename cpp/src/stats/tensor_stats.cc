// One-pass tensor statistics (msprobe 1.2.1 semantics, reference data-dump §7.1): the front.
//
// Every element is read once. Contiguous memory is processed in cache-sized blocks: the
// statistics kernel (stats_kernel.h, one copy per ISA) runs over a block, then (when asked) the
// CRC runs over the same block while it is still in cache. Strided views are walked run by run
// (in memory order when no CRC is wanted); short or strided runs are gathered into a small
// buffer first so the kernels always see arrays. The lanes are merged once at the end.
//
// Only a tensor that contains +-inf takes a second pass, to find the finite extremes for
// Max_except_inf_nan / Min_except_inf_nan (tracking them in the main loop costs ~40% of its
// in-cache speed for a case that only occurs on overflow).
#include "msprobe/stats/tensor_stats.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "msprobe/base/cpu_features.h"
#include "msprobe/base/error.h"
#include "stats_internal.h"
#include "stats_kernel.h"

namespace msprobe {
namespace {

using namespace stats_kernel;

constexpr size_t kGatherBytes = kBlock * 16;  // kBlock elements of the widest dtype
constexpr size_t kDirectRunBytes = 256;       // runs at least this long are not gathered

std::atomic<bool> g_force_portable{false};

template <DType D, bool kFinite>
BlockFn<D> pick_block_fn() {
#ifdef MSPROBE_STATS_X86
  if (stats_avx2_available() && !g_force_portable.load(std::memory_order_relaxed))
    return &block_avx2<D, kFinite>;
#endif
  return &block_portable<D, kFinite>;
}

// ---- Walking the memory ----------------------------------------------------------------------

template <size_t N>
struct Bytes {
  unsigned char b[N];
};

// Copies n elements of size N spaced `stride` elements apart into dst.
template <size_t N>
void gather_strided(unsigned char* dst, const unsigned char* src, int64_t stride, int64_t n) {
  const int64_t step = stride * (int64_t)N;
  for (int64_t i = 0; i < n; ++i, src += step, dst += N) std::memcpy(dst, src, N);
}

void gather_strided(size_t esz, unsigned char* dst, const unsigned char* src, int64_t stride, int64_t n) {
  switch (esz) {
    case 1: gather_strided<1>(dst, src, stride, n); break;
    case 2: gather_strided<2>(dst, src, stride, n); break;
    case 4: gather_strided<4>(dst, src, stride, n); break;
    case 8: gather_strided<8>(dst, src, stride, n); break;
    default: gather_strided<16>(dst, src, stride, n); break;
  }
}

// Copies n contiguous elements of size N to dst, dst_step bytes apart.
template <size_t N>
void scatter_contiguous(unsigned char* dst, int64_t dst_step, const unsigned char* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i, dst += dst_step, src += N) std::memcpy(dst, src, N);
}

void scatter_contiguous(size_t esz, unsigned char* dst, int64_t dst_step, const unsigned char* src,
                        int64_t n) {
  switch (esz) {
    case 1: scatter_contiguous<1>(dst, dst_step, src, n); break;
    case 2: scatter_contiguous<2>(dst, dst_step, src, n); break;
    case 4: scatter_contiguous<4>(dst, dst_step, src, n); break;
    case 8: scatter_contiguous<8>(dst, dst_step, src, n); break;
    default: scatter_contiguous<16>(dst, dst_step, src, n); break;
  }
}

// Calls sink(ptr, count) over every element of the view, in pieces that are either long
// contiguous runs of the view or a gather buffer of up to kBlock elements.
//
// logical_order: visit the elements in row-major order (needed for the CRC). Otherwise the
// dimensions are reordered to follow memory (largest stride outermost, negative strides
// flipped), so that for example a transposed contiguous tensor is read as one run; the
// statistics do not depend on the order.
//
// Like TensorView::for_each_run, but dimensions are coalesced and a non-unit innermost stride
// is gathered with a strided copy rather than one callback per element.
template <typename Sink>
void walk(const TensorView& t, bool logical_order, Sink&& sink) {
  if (t.is_contiguous()) {
    sink(t.data, t.numel());
    return;
  }
  const size_t esz = dtype_size(t.dtype);
  const unsigned char* base = static_cast<const unsigned char*>(t.data);
  struct Dim {
    int64_t size, stride;
  };
  Dim dims[64];
  size_t nd = 0;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] == 1) continue;
    MSPROBE_CHECK(nd < 64, InvalidInput, "compute_stats: more than 64 dimensions");
    dims[nd++] = {t.shape[d], t.strides[d]};
  }
  if (!logical_order) {
    for (size_t d = 0; d < nd; ++d) {
      if (dims[d].stride < 0) {
        base += dims[d].stride * (dims[d].size - 1) * (int64_t)esz;
        dims[d].stride = -dims[d].stride;
      }
    }
    std::stable_sort(dims, dims + nd, [](const Dim& a, const Dim& b) { return a.stride > b.stride; });
  }
  // Merge a dimension into the next-inner one when they are laid out back to back.
  size_t m = 0;
  for (size_t d = 0; d < nd; ++d) {
    if (m > 0 && dims[m - 1].stride == dims[d].stride * dims[d].size) {
      dims[m - 1] = {dims[m - 1].size * dims[d].size, dims[d].stride};
    } else {
      dims[m++] = dims[d];
    }
  }
  nd = m;
  if (nd == 0) {  // a single element
    sink(base, 1);
    return;
  }
  const Dim inner = dims[nd - 1];
  if (nd == 1 && inner.stride == 1) {
    sink(base, inner.size);
    return;
  }

  alignas(64) unsigned char gather[kGatherBytes];
  const int64_t cap = kBlock;
  int64_t used = 0;
  auto flush = [&] {
    if (used) sink(gather, used);
    used = 0;
  };
  // One run of `size` elements `stride` apart: long contiguous runs go to the sink directly,
  // others through the gather buffer.
  auto run = [&](const unsigned char* p, int64_t size, int64_t stride) {
    if (stride == 1) {
      if ((size_t)size * esz >= kDirectRunBytes) {
        flush();
        sink(p, size);
        return;
      }
      if (used + size > cap) flush();
      std::memcpy(gather + used * esz, p, (size_t)size * esz);
      used += size;
      return;
    }
    for (int64_t done = 0; done < size;) {
      if (used == cap) flush();
      const int64_t k = std::min(size - done, cap - used);
      gather_strided(esz, gather + used * esz, p + done * stride * (int64_t)esz, stride, k);
      used += k;
      done += k;
    }
  };
  // Odometer over dims[0, n_outer) with an incrementally updated pointer.
  auto for_each_outer = [&](size_t n_outer, auto&& fn) {
    int64_t idx[64] = {0};
    const unsigned char* p = base;
    for (;;) {
      fn(p);
      size_t d = n_outer;
      for (; d-- > 0;) {
        p += dims[d].stride * (int64_t)esz;
        if (++idx[d] < dims[d].size) break;
        p -= dims[d].stride * dims[d].size * (int64_t)esz;
        idx[d] = 0;
      }
      if (d == (size_t)-1) break;
    }
  };

  // Logical order over a transposed innermost pair (x.t(), x.mT): the innermost dimension
  // jumps through memory while the next one is contiguous. Element by element, every element
  // would touch a new cache line and often a new page; instead copy tiles of `rows` logical
  // rows, reading `rows` contiguous elements of every memory row, then emit the rows in order.
  if (logical_order && nd >= 2 && inner.stride != 1 && dims[nd - 2].stride == 1 && dims[nd - 2].size >= 4 &&
      inner.size >= 8) {
    const Dim outer_rows = dims[nd - 2];
    const int64_t row_bytes = inner.size * (int64_t)esz;
    // Tile rows are padded so that they do not all fall into the same cache sets.
    const int64_t pitch = (row_bytes + 63) / 64 * 64 + 64;
    const int64_t want = std::max<int64_t>(4, 256 / (int64_t)esz);
    const int64_t rows = std::min<int64_t>({want, outer_rows.size, (int64_t)(512 << 10) / pitch});
    if (rows >= 4) {
      std::vector<unsigned char> tile((size_t)(rows * pitch));
      const int64_t src_step = inner.stride * (int64_t)esz;
      for_each_outer(nd - 2, [&](const unsigned char* p) {
        for (int64_t r0 = 0; r0 < outer_rows.size; r0 += rows) {
          const int64_t t = std::min(rows, outer_rows.size - r0);
          const unsigned char* src = p + r0 * (int64_t)esz;
          for (int64_t i = 0; i < inner.size; ++i, src += src_step)
            scatter_contiguous(esz, tile.data() + i * (int64_t)esz, pitch, src, t);
          for (int64_t r = 0; r < t; ++r) run(tile.data() + r * pitch, inner.size, 1);
        }
      });
      flush();
      return;
    }
  }

  for_each_outer(nd - 1, [&](const unsigned char* p) { run(p, inner.size, inner.stride); });
  flush();
}

struct Reduced {
  double mx, mn, fmx, fmn, s, q;
  int64_t n;
};

template <typename V>
Reduced merge(const Acc<V>& a) {
  const double inf = std::numeric_limits<double>::infinity();
  Reduced r{-inf, inf, -inf, inf, 0.0, 0.0, a.n};
  for (int i = 0; i < kLanes; ++i) {
    const double mx = a.mx[i], mn = a.mn[i], fmx = a.fmx[i], fmn = a.fmn[i];
    r.mx = mx > r.mx ? mx : r.mx;
    r.mn = mn < r.mn ? mn : r.mn;
    r.fmx = fmx > r.fmx ? fmx : r.fmx;
    r.fmn = fmn < r.fmn ? fmn : r.fmn;
    r.s += a.s[i];
    r.q += a.q[i];
  }
  return r;
}

// fp64 sums of squares (and sums) can overflow or underflow where the true norm / mean is
// representable. Recompute them scaled by the largest magnitude; only for such tensors.
void rescale_f64(const TensorView& t, double scale, double& mean, double& norm) {
  double s = 0.0, q = 0.0;
  const double inv = 1.0 / scale;
  int64_t n = 0;
  walk(t, false, [&](const void* p, int64_t count) {
    const double* x = static_cast<const double*>(p);
    for (int64_t i = 0; i < count; ++i) {
      const double y = load<double>(x + i) * inv;
      s += y;
      q += y * y;
    }
    n += count;
  });
  mean = s / (double)n * scale;
  norm = std::sqrt(q) * scale;
}

// Runs the kernel over the view; with want_crc also the CRC, block by block in logical order.
template <DType D, bool kFinite>
Acc<typename Kind<D>::V> run_pass(const TensorView& t, bool want_crc, uint32_t* crc_out) {
  typedef typename Kind<D>::V V;
  const BlockFn<D> fn = pick_block_fn<D, kFinite>();
  Acc<V> acc;
  uint32_t crc = 0;
  const size_t esz = dtype_size(D);
  alignas(64) V scratch[kBlock];
  walk(t, want_crc, [&](const void* p, int64_t count) {
    if (Kind<D>::kDirect && !want_crc) {
      fn(p, count, acc, nullptr);
      return;
    }
    const unsigned char* c = static_cast<const unsigned char*>(p);
    for (int64_t done = 0; done < count; done += kBlock) {
      const int64_t b = count - done < kBlock ? count - done : kBlock;
      if (want_crc && done + kBlock < count) {
        // Statistics then CRC over a block leaves the memory idle during the CRC; asking for
        // the next block first keeps it streaming (+20-40% with CRC, measured).
        const unsigned char* next = c + (done + kBlock) * (int64_t)esz;
        const int64_t next_bytes = std::min<int64_t>(kBlock, count - done - kBlock) * (int64_t)esz;
        for (int64_t o = 0; o < next_bytes; o += 64) __builtin_prefetch(next + o, 0, 3);
      }
      fn(c + done * (int64_t)esz, b, acc, scratch);
      if (want_crc) {
        if (D == DType::kBFloat16)  // the original checksums bf16 as float32 bytes
          crc = crc32_update(crc, scratch, (size_t)b * sizeof(float));
        else
          crc = crc32_update(crc, c + done * (int64_t)esz, (size_t)b * esz);
      }
    }
  });
  if (want_crc) *crc_out = crc;
  return acc;
}

template <DType D>
void stats_real(const TensorView& t, bool want_crc, TensorStats& out) {
  uint32_t crc = 0;
  Reduced r = merge(run_pass<D, false>(t, want_crc, &crc));
  if (want_crc) out.crc32 = crc;

  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool has_nan = std::isnan(r.q);  // squares are >= 0 or +inf: only a NaN input gives NaN
  double mx = has_nan ? nan : r.mx;
  double mn = has_nan ? nan : r.mn;
  double mean = has_nan ? nan : r.s / (double)r.n;
  double norm = std::sqrt(r.q);
  if (D == DType::kFloat64 && !has_nan) {
    const double big = std::fabs(mx) > std::fabs(mn) ? std::fabs(mx) : std::fabs(mn);
    if (std::isfinite(big) && big > 0.0 && (big > 1e150 || big < 1e-150)) rescale_f64(t, big, mean, norm);
  }
  set_float_stats(out, D, mx, mn, mean, norm);
  if (std::isfinite(mx) && std::isfinite(mn)) return;
  // Max or Min is inf/NaN: extremes over the finite values; without any finite value, over
  // the non-NaN values (+-inf); NaN when everything is NaN. Without infinities the finite
  // extremes are the NaN-ignoring ones already at hand; with infinities (overflow, rare) a
  // second pass tracks the finite extremes, so that the common pass stays lean.
  if constexpr (Kind<D>::kCanBeNonFinite) {
    if (r.mx == inf || r.mn == -inf) {
      const Reduced f = merge(run_pass<D, true>(t, false, nullptr));
      r.fmx = f.fmx;
      r.fmn = f.fmn;
    } else {
      r.fmx = r.mx;
      r.fmn = r.mn;
    }
  }
  set_except_inf_nan(out, mx, mn, r.fmx, r.fmn, r.mx, r.mn);
}

void stats_bool(const TensorView& t, bool want_crc, TensorStats& out) {
  bool any = false, all = true;
  uint32_t crc = 0;
  walk(t, want_crc, [&](const void* p, int64_t count) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    uint8_t orv = 0, andv = 1;
    for (int64_t i = 0; i < count; ++i) {
      orv |= b[i];
      andv &= (uint8_t)(b[i] != 0);
    }
    any = any || orv != 0;
    all = all && andv != 0;
    if (want_crc) crc = crc32_update(crc, p, (size_t)count);
  });
  out.max = StatValue::boolean(any);
  out.min = StatValue::boolean(all);
  if (want_crc) out.crc32 = crc;
}

// A 0-dim tensor: every statistic is the value itself (msprobe uses t.item()).
void stats_scalar(const TensorView& t, bool want_crc, TensorStats& out) {
  const void* p = t.data;
  const DType d = t.dtype;
  if (want_crc) {
    if (d == DType::kBFloat16) {
      const float f = bf16_to_float(load<uint16_t>(p));
      out.crc32 = crc32_update(0, &f, sizeof(f));
    } else {
      out.crc32 = crc32_update(0, p, dtype_size(d));
    }
  }
  StatValue v;
  double f = 0.0;
  switch (d) {
    case DType::kBool: out.max = out.min = StatValue::boolean(load<uint8_t>(p) != 0); return;
    case DType::kComplex64:
    case DType::kComplex128: {
      // |z| as for larger tensors (Norm: see complex_abs_norm).
      if (d == DType::kComplex64) {
        float z[2], m;
        std::memcpy(z, p, sizeof(z));
        convert_abs_c64(z, &m, 1);
        f = m;
      } else {
        f = abs_c128(load<double>(p), load<double>(static_cast<const double*>(p) + 1));
      }
      out.max = out.min = out.mean = StatValue::floating(f);
      out.complex_abs_norm = f;
      break;
    }
    case DType::kUInt8: v = StatValue::integer(load<uint8_t>(p)); break;
    case DType::kInt8: v = StatValue::integer(load<int8_t>(p)); break;
    case DType::kInt16: v = StatValue::integer(load<int16_t>(p)); break;
    case DType::kInt32: v = StatValue::integer(load<int32_t>(p)); break;
    case DType::kInt64: v = StatValue::integer(load<int64_t>(p)); break;
    case DType::kFloat16:
      f = half_to_float(load<uint16_t>(p));
      v = StatValue::floating(f);
      break;
    case DType::kBFloat16:
      f = bf16_to_float(load<uint16_t>(p));
      v = StatValue::floating(f);
      break;
    case DType::kFloat32:
      f = load<float>(p);
      v = StatValue::floating(f);
      break;
    case DType::kFloat64:
      f = load<double>(p);
      v = StatValue::floating(f);
      break;
  }
  if (!dtype_is_complex(d)) out.max = out.min = out.mean = out.norm = v;
  if (!std::isfinite(f)) out.max_except_inf_nan = out.min_except_inf_nan = f;  // inf or NaN
}

}  // namespace

void stats_force_portable_kernels(bool on) { g_force_portable.store(on); }

void set_float_stats(TensorStats& out, DType dtype, double max, double min, double mean, double norm) {
  if (dtype != DType::kFloat64 && dtype != DType::kComplex128) {
    mean = (double)(float)mean;
    norm = (double)(float)norm;
  }
  out.max = StatValue::floating(max);
  out.min = StatValue::floating(min);
  out.mean = StatValue::floating(mean);
  if (dtype_is_complex(dtype))
    out.complex_abs_norm = norm;
  else
    out.norm = StatValue::floating(norm);
}

void set_except_inf_nan(TensorStats& out, double max, double min, double finite_max, double finite_min,
                        double non_nan_max, double non_nan_min) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool any_finite = std::isfinite(finite_max);
  const bool any_non_nan = non_nan_min <= non_nan_max;
  if (!std::isfinite(max)) out.max_except_inf_nan = any_finite ? finite_max : any_non_nan ? non_nan_max : nan;
  if (!std::isfinite(min)) out.min_except_inf_nan = any_finite ? finite_min : any_non_nan ? non_nan_min : nan;
}

TensorStats compute_stats(const TensorView& t, bool want_crc) {
  TensorStats out;
  if (t.numel() == 0) {
    if (want_crc) out.crc32 = 0u;
    return out;
  }
  MSPROBE_CHECK(t.data != nullptr, InvalidInput, "compute_stats: tensor has no host data");
  MSPROBE_CHECK(t.strides.empty() || t.strides.size() == t.shape.size(), InvalidInput,
                "compute_stats: " + std::to_string(t.strides.size()) + " strides for " +
                    std::to_string(t.shape.size()) + " dimensions");
  if (t.shape.empty()) {
    stats_scalar(t, want_crc, out);
    return out;
  }
  switch (t.dtype) {
    case DType::kBool: stats_bool(t, want_crc, out); break;
    case DType::kUInt8: stats_real<DType::kUInt8>(t, want_crc, out); break;
    case DType::kInt8: stats_real<DType::kInt8>(t, want_crc, out); break;
    case DType::kInt16: stats_real<DType::kInt16>(t, want_crc, out); break;
    case DType::kInt32: stats_real<DType::kInt32>(t, want_crc, out); break;
    case DType::kInt64: stats_real<DType::kInt64>(t, want_crc, out); break;
    case DType::kFloat16: stats_real<DType::kFloat16>(t, want_crc, out); break;
    case DType::kBFloat16: stats_real<DType::kBFloat16>(t, want_crc, out); break;
    case DType::kFloat32: stats_real<DType::kFloat32>(t, want_crc, out); break;
    case DType::kFloat64: stats_real<DType::kFloat64>(t, want_crc, out); break;
    case DType::kComplex64: stats_real<DType::kComplex64>(t, want_crc, out); break;
    case DType::kComplex128: stats_real<DType::kComplex128>(t, want_crc, out); break;
  }
  return out;
}

}  // namespace msprobe
