// The pool of written file buffers: reuse, best fit, limits.
#include <gtest/gtest.h>

#include "msprobe/format/buffer_pool.h"

namespace msprobe {
namespace {

TEST(BufferPool, ReusesTheMemoryOfAWrittenBuffer) {
  set_output_buffer_pool_limit(size_t(8) << 20);
  std::string a = take_output_buffer(1 << 20);
  ASSERT_EQ(a.size(), size_t(1) << 20);
  const char* memory = a.data();
  recycle_output_buffer(std::move(a));
  EXPECT_GE(output_buffer_pool_bytes(), size_t(1) << 20);
  std::string b = take_output_buffer((1 << 20) - 100);  // a bit smaller: the same buffer fits
  EXPECT_EQ(b.data(), memory);
  EXPECT_EQ(b.size(), size_t((1 << 20) - 100));
  EXPECT_EQ(output_buffer_pool_bytes(), 0u);
  recycle_output_buffer(std::move(b));
  std::string c = take_output_buffer(100 << 10);  // far smaller: not worth holding 1 MiB for it
  EXPECT_NE(c.data(), memory);
  set_output_buffer_pool_limit(0);
}

TEST(BufferPool, KeepsWithinItsLimit) {
  set_output_buffer_pool_limit(size_t(3) << 20);
  for (int i = 0; i < 5; ++i) recycle_output_buffer(take_output_buffer(1 << 20));
  EXPECT_LE(output_buffer_pool_bytes(), size_t(3) << 20);
  recycle_output_buffer(take_output_buffer(4 << 20));  // larger than the limit: freed
  EXPECT_LE(output_buffer_pool_bytes(), size_t(3) << 20);
  recycle_output_buffer(std::string(1000, 'x'));  // small: malloc handles it well, not pooled
  set_output_buffer_pool_limit(0);
  EXPECT_EQ(output_buffer_pool_bytes(), 0u);
}

}  // namespace
}  // namespace msprobe
