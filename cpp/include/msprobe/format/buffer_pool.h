// Reuse of the memory of written tensor files. A fresh buffer of a few hundred KiB or more comes
// from mmap, and touching it costs one page fault per 4 KiB: in tensor dumps that cost more than
// copying the data. Buffers given back after their file is written are handed out again, so the
// pages stay mapped. The pool holds at most its limit (bytes of capacity); the rest is freed.
#pragma once
#include <cstddef>
#include <string>

namespace msprobe {

// A string of exactly `size` bytes whose contents the caller overwrites.
std::string take_output_buffer(size_t size);
// Gives `buf`'s memory back for reuse (kept when it is large enough to matter and fits the limit).
void recycle_output_buffer(std::string&& buf);
// Bytes of capacity the pool may keep (default 64 MiB); shrinking frees what is over it.
void set_output_buffer_pool_limit(size_t bytes);
size_t output_buffer_pool_bytes();

}  // namespace msprobe
