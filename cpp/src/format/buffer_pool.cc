// Output buffer pool: see buffer_pool.h.
#include "msprobe/format/buffer_pool.h"

#include <map>
#include <mutex>

#include "msprobe/format/zip_writer.h"

namespace msprobe {

namespace {

// Below this, malloc serves from its arenas without fresh pages: pooling would not help.
constexpr size_t kMinPooled = 64 * 1024;

struct Pool {
  std::mutex mu;
  std::multimap<size_t, std::string> by_capacity;
  size_t bytes = 0;
  size_t limit = size_t(64) << 20;

  void trim() {  // frees the largest buffers first: they are the least likely to fit again
    while (bytes > limit && !by_capacity.empty()) {
      auto last = std::prev(by_capacity.end());
      bytes -= last->first;
      by_capacity.erase(last);
    }
  }
};

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: the writer thread may recycle at exit
  return *p;
}

}  // namespace

std::string take_output_buffer(size_t size) {
  if (size >= kMinPooled) {
    Pool& p = pool();
    std::string buf;
    {
      std::lock_guard<std::mutex> lk(p.mu);
      auto it = p.by_capacity.lower_bound(size);
      // Best fit, but not a buffer more than twice as large (it would hold memory idle).
      if (it != p.by_capacity.end() && it->first <= 2 * size) {
        p.bytes -= it->first;
        buf = std::move(it->second);
        p.by_capacity.erase(it);
      }
    }
    if (buf.capacity() >= size) {
      buf.resize(size);  // writes into pages that are already mapped
      return buf;
    }
  }
  std::string out;
  out.reserve(size);  // allocates without touching the pages
  advise_huge_pages(&out[0], size);
  out.resize(size);
  return out;
}

void recycle_output_buffer(std::string&& buf) {
  const size_t cap = buf.capacity();
  if (cap < kMinPooled) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lk(p.mu);
  if (cap > p.limit) return;
  buf.clear();
  p.by_capacity.emplace(cap, std::move(buf));
  p.bytes += cap;
  p.trim();
}

void set_output_buffer_pool_limit(size_t bytes) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lk(p.mu);
  p.limit = bytes;
  p.trim();
}

size_t output_buffer_pool_bytes() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lk(p.mu);
  return p.bytes;
}

}  // namespace msprobe
