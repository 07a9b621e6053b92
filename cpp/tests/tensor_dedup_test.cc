// Tensor files: their names, and hard links for tensors saved again unchanged (PyTorch tensor
// task): when a file is linked.
#include <gtest/gtest.h>

#include "msprobe/dump/tensor_dedup.h"
#include "msprobe/dump/tensor_output.h"

namespace msprobe {
namespace {

// A tensor object that can die: its token then no longer reaches it.
struct FakeObject {
  int storage = 0;
};
class FakeToken : public ObjectToken {
 public:
  explicit FakeToken(const FakeObject* o) : obj_(o) {}
  const void* object() const override { return alive ? obj_ : nullptr; }
  bool alive = true;

 private:
  const FakeObject* obj_;
};

TensorIdentity identity(const std::shared_ptr<FakeToken>& token, int64_t version) {
  TensorIdentity id;
  id.token = token;
  id.version = version;
  static const float kMemory[6] = {};
  id.data = kMemory;  // the same memory throughout: only the token tells objects apart
  id.shape = {2, 3};
  id.strides = {3, 1};
  return id;
}

TEST(TensorDedup, SameObjectUnchangedIsLinkedToItsFirstFile) {
  FakeObject t;
  auto token = std::make_shared<FakeToken>(&t);
  TensorDedup d;
  EXPECT_EQ(d.link_target(identity(token, 4), 0xabc, "a.0.forward.input.0.pt"), "");
  EXPECT_EQ(d.link_target(identity(token, 4), 0xabc, "b.0.forward.input.0.pt"), "a.0.forward.input.0.pt");
  // Still linked to the first file, not to the latest link.
  EXPECT_EQ(d.link_target(identity(token, 4), 0xabc, "c.0.forward.input.0.pt"), "a.0.forward.input.0.pt");
}

TEST(TensorDedup, AnyChangeWritesTheFileAgain) {
  FakeObject t;
  auto token = std::make_shared<FakeToken>(&t);
  TensorDedup d;
  EXPECT_EQ(d.link_target(identity(token, 1), 7, "first"), "");
  EXPECT_EQ(d.link_target(identity(token, 2), 7, "in_place"), "");  // version counter moved
  EXPECT_EQ(d.link_target(identity(token, 2), 8, "bytes"), "");     // other bytes
  TensorIdentity reshaped = identity(token, 2);
  reshaped.shape = {3, 2};
  reshaped.strides = {2, 1};
  EXPECT_EQ(d.link_target(reshaped, 8, "view"), "");
  // The latest file is what an unchanged tensor links to next.
  EXPECT_EQ(d.link_target(reshaped, 8, "again"), "view");
}

TEST(TensorDedup, UnrecognisableOrDeadObjectsAreNeverLinked) {
  FakeObject t;
  auto token = std::make_shared<FakeToken>(&t);
  TensorDedup d;
  EXPECT_EQ(d.link_target(identity(token, -1), 1, "no_version"), "");
  EXPECT_EQ(d.remembered(), 0u);
  TensorIdentity no_token = identity(token, 1);
  no_token.token.reset();
  EXPECT_EQ(d.link_target(no_token, 1, "no_token"), "");
  EXPECT_EQ(d.link_target(identity(token, 1), 1, "first"), "");
  // A new object at the same address: the remembered token no longer reaches it.
  token->alive = false;
  auto reborn = std::make_shared<FakeToken>(&t);
  EXPECT_EQ(d.link_target(identity(reborn, 1), 1, "second"), "");
  EXPECT_EQ(d.link_target(identity(reborn, 1), 1, "third"), "second");
  d.clear();  // a new step
  EXPECT_EQ(d.link_target(identity(reborn, 1), 1, "next_step"), "");
}

TEST(TensorFileNames, EntryCategoryAndPath) {
  EXPECT_EQ(tensor_file_stem("Torch.add.0.forward", "input", "0"), "Torch.add.0.forward.input.0");
  EXPECT_EQ(tensor_file_stem("Module.fc.Linear.forward.0", "kwargs", "bias.1"),
            "Module.fc.Linear.forward.0.kwargs.bias.1");
}

}  // namespace
}  // namespace msprobe
