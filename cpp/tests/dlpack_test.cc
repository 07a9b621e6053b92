// DLPack exports as zero-copy views: dtype mapping, byte offset, strides, host readability.
#include <gtest/gtest.h>

#include "msprobe/base/error.h"
#include "msprobe/tensor/dlpack.h"

namespace msprobe {
namespace {

TEST(DLPack, ViewOfAHostTensorWithOffsetAndStrides) {
  float data[8] = {};
  int64_t shape[2] = {2, 3}, strides[2] = {1, 2};
  DLTensor t{data, {1, 0}, 2, {2, 32, 1}, shape, strides, 2 * sizeof(float)};
  TensorView v;
  bool on_cpu = false;
  ASSERT_TRUE(view_from_dlpack(t, v, on_cpu));
  EXPECT_TRUE(on_cpu);
  EXPECT_EQ(v.dtype, DType::kFloat32);
  EXPECT_EQ(v.data, static_cast<const void*>(data + 2));
  EXPECT_EQ(v.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(v.strides, (std::vector<int64_t>{1, 2}));
  t.strides = nullptr;       // contiguous
  t.device.device_type = 2;  // CUDA memory: not readable here
  ASSERT_TRUE(view_from_dlpack(t, v, on_cpu));
  EXPECT_TRUE(v.strides.empty());
  EXPECT_FALSE(on_cpu);
}

TEST(DLPack, UnsupportedDtypesAndVersions) {
  int64_t shape[1] = {4};
  DLTensor t{nullptr, {1, 0}, 1, {1, 16, 1}, shape, nullptr, 0};  // uint16
  TensorView v;
  bool on_cpu = false;
  EXPECT_FALSE(view_from_dlpack(t, v, on_cpu));
  EXPECT_EQ(
      unsupported_dlpack_dtype(t, "").rfind("unsupported tensor dtype DLPack type code 1 with 16 bits", 0),
      0u);
  EXPECT_EQ(unsupported_dlpack_dtype(t, "torch.uint16").rfind("unsupported tensor dtype torch.uint16:", 0),
            0u);
  t.dtype = {6, 8, 1};
  ASSERT_TRUE(view_from_dlpack(t, v, on_cpu));
  EXPECT_EQ(v.dtype, DType::kBool);
  DLManagedTensorVersioned m{};
  m.version = {2, 0};
  EXPECT_THROW(dlpack_versioned_tensor(m), InvalidInput);
  m.version = {1, 1};
  EXPECT_EQ(&dlpack_versioned_tensor(m), &m.dl_tensor);
}

}  // namespace
}  // namespace msprobe
