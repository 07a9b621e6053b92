// The C++ .pt reader: round trip with our torch.save encoder, refusals, corrupt input.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "msprobe/format/pt_writer.h"
#include "msprobe/runut/pt_reader.h"

namespace msprobe {
namespace runut {
namespace {

TEST(RunutPtReader, RoundTripWithEncoder) {
  std::vector<float> v{1.5f, -2.0f, 3.25f, 0.0f, 5.0f, 6.0f};
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kFloat32;
  t.shape = {2, 3};
  PtTensor r = read_pt_bytes(encode_pt(t, "x", true));
  EXPECT_EQ(r.dtype, DType::kFloat32);
  EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.stride, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(r.storage_offset, 0);
  EXPECT_TRUE(r.requires_grad);
  ASSERT_EQ(r.storage.size(), v.size() * 4);
  EXPECT_EQ(std::memcmp(r.storage.data(), v.data(), r.storage.size()), 0);

  std::vector<uint16_t> h{0x3c00, 0x4000};
  TensorView b;
  b.data = h.data();
  b.dtype = DType::kBFloat16;
  b.shape = {};
  PtTensor rb = read_pt_bytes(encode_pt(b, "y", false));
  EXPECT_EQ(rb.dtype, DType::kBFloat16);
  EXPECT_TRUE(rb.shape.empty());
  EXPECT_EQ(rb.storage.size(), 2u);
}

TEST(RunutPtReader, RefusesWhatItDoesNotRead) {
  EXPECT_THROW(read_pt_bytes(""), PtUnsupported);
  EXPECT_THROW(read_pt_bytes("not a zip file at all, just text........"), PtUnsupported);
  std::vector<int64_t> v{1, 2, 3};
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kInt64;
  t.shape = {3};
  const std::string good = encode_pt(t, "z", false);
  // Every truncation and every single-byte corruption is refused or read within bounds.
  for (size_t n = 0; n < good.size(); n += 7) EXPECT_THROW(read_pt_bytes(good.substr(0, n)), PtUnsupported);
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = (char)(bad[i] ^ 0x5a);
    try {
      PtTensor r = read_pt_bytes(bad);
      int64_t last = r.storage_offset;
      for (size_t d = 0; d < r.shape.size(); ++d) last += (r.shape[d] - 1) * r.stride[d];
      EXPECT_LE((size_t)(last + 1) * dtype_size(r.dtype), r.storage.size());
    } catch (const PtUnsupported&) {
    }
  }
  EXPECT_THROW(read_pt_file("/nonexistent.pt"), PtUnsupported);
}

}  // namespace
}  // namespace runut
}  // namespace msprobe
