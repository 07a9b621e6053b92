// Statistics kernel bandwidth against single-core memcpy.
//
// 256 MiB of fp32 (and smaller extra cases); median of 7 runs each of
//   memcpy (bytes read), compute_stats without CRC, compute_stats with CRC, crc32_update alone.
// Usage: stats_bandwidth_bench [MiB] [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "../cpp/src/stats/stats_internal.h"
#include "msprobe/stats/tensor_stats.h"

using namespace msprobe;

namespace {

volatile double g_sink = 0;

template <typename Fn>
double median_seconds(int runs, Fn&& fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto a = std::chrono::steady_clock::now();
    fn();
    auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void sink(const TensorStats& s) { g_sink = g_sink + s.mean.f + (s.crc32 ? *s.crc32 : 0); }

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
  const size_t bytes = mib << 20;
  const size_t n = bytes / sizeof(float);

  std::vector<float> src(n), dst(n);
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (size_t i = 0; i < n; ++i) src[i] = dist(rng);
  std::memcpy(dst.data(), src.data(), bytes);  // fault in both buffers

  TensorView v;
  v.data = src.data();
  v.dtype = DType::kFloat32;
  v.shape = {(int64_t)n};

  const double gb = (double)bytes / 1e9;
  const double t_memcpy = median_seconds(runs, [&] {
    std::memcpy(dst.data(), src.data(), bytes);
    g_sink = g_sink + dst[n / 2];
  });
  const double t_stats = median_seconds(runs, [&] { sink(compute_stats(v, false)); });
  const double t_stats_crc = median_seconds(runs, [&] { sink(compute_stats(v, true)); });
  const double t_crc =
      median_seconds(runs, [&] { g_sink = g_sink + crc32_update(0, src.data(), bytes); });
  stats_force_portable_kernels(true);
  const double t_portable = median_seconds(runs, [&] { sink(compute_stats(v, false)); });
  stats_force_portable_kernels(false);

  std::printf("buffer: %zu MiB fp32, median of %d runs\n", mib, runs);
  std::printf("%-28s %8.2f GB/s\n", "memcpy (bytes read)", gb / t_memcpy);
  std::printf("%-28s %8.2f GB/s  ratio %.2f\n", "compute_stats", gb / t_stats, t_memcpy / t_stats);
  std::printf("%-28s %8.2f GB/s  ratio %.2f\n", "compute_stats + crc", gb / t_stats_crc,
              t_memcpy / t_stats_crc);
  std::printf("%-28s %8.2f GB/s  ratio %.2f\n", "crc32 alone", gb / t_crc, t_memcpy / t_crc);
  std::printf("%-28s %8.2f GB/s  ratio %.2f\n", "compute_stats, portable", gb / t_portable,
              t_memcpy / t_portable);
  std::printf("(ratio = memcpy time / time; memcpy of N bytes reads N and writes N)\n");

  // Other dtypes / layouts, realistic values (normal(0, 1)), statistics without CRC.
  struct Case {
    const char* name;
    DType dtype;
    std::vector<int64_t> shape, strides;
  };
  const int64_t n16 = (int64_t)(bytes / 2), n64 = (int64_t)(bytes / 8);
  std::vector<unsigned char> other(bytes);
  auto fill = [&](DType d) {
    const int64_t count = (int64_t)(bytes / dtype_size(d));
    for (int64_t i = 0; i < count; ++i) {
      const float f = src[(size_t)i % n];
      unsigned char* p = other.data() + i * (int64_t)dtype_size(d);
      if (d == DType::kBFloat16) {
        const uint16_t h = float_to_bf16(f);
        std::memcpy(p, &h, 2);
      } else if (d == DType::kFloat16) {
        const uint16_t h = float_to_half(f);
        std::memcpy(p, &h, 2);
      } else if (d == DType::kFloat64) {
        const double x = f;
        std::memcpy(p, &x, 8);
      } else if (d == DType::kInt64) {
        const int64_t x = (int64_t)(f * 1000.f);
        std::memcpy(p, &x, 8);
      }
    }
  };
  const int64_t rows = 4096;
  const std::vector<Case> cases = {
      {"bf16 contiguous", DType::kBFloat16, {n16}, {}},
      {"fp16 contiguous", DType::kFloat16, {n16}, {}},
      {"fp64 contiguous", DType::kFloat64, {n64}, {}},
      {"int64 contiguous", DType::kInt64, {n64}, {}},
      {"fp32 [::2] (half the bytes)", DType::kFloat32, {(int64_t)n / 2}, {2}},
      {"fp32 transposed", DType::kFloat32, {(int64_t)n / rows, rows}, {1, (int64_t)n / rows}},
  };
  for (const Case& c : cases) {
    TensorView w;
    w.data = src.data();
    if (c.dtype != DType::kFloat32) {
      fill(c.dtype);
      w.data = other.data();
    }
    w.dtype = c.dtype;
    w.shape = c.shape;
    w.strides = c.strides;
    const double t = median_seconds(runs, [&] { sink(compute_stats(w, false)); });
    const double tc = median_seconds(runs, [&] { sink(compute_stats(w, true)); });
    std::printf("%-28s %8.2f GB/s, %5.2f Gelem/s; with crc %8.2f GB/s\n", c.name,
                (double)w.nbytes() / 1e9 / t, (double)w.numel() / 1e9 / t,
                (double)w.nbytes() / 1e9 / tc);
  }
  return 0;
}
