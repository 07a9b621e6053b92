// The shared text helpers (msprobe/base/strings.h): Python's meaning at the edges.
#include "msprobe/base/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace msprobe {
namespace {

using Views = std::vector<std::string_view>;

TEST(BaseStrings, PrefixSuffixContains) {
  EXPECT_TRUE(starts_with("Module.fc", "Module."));
  EXPECT_TRUE(starts_with("abc", ""));
  EXPECT_FALSE(starts_with("Mod", "Module"));
  EXPECT_TRUE(ends_with("rank0/dump.json", "dump.json"));
  EXPECT_FALSE(ends_with("json", ".json"));
  EXPECT_TRUE(contains("Torch.add.0.forward", ".forward"));
  EXPECT_FALSE(contains("Torch.add", "forward"));
}

TEST(BaseStrings, LowerAndStrip) {
  EXPECT_EQ(to_lower("NaN Inf \xC3\x89"), "nan inf \xC3\x89");  // ASCII only
  EXPECT_EQ(strip(" \t x y \r\n"), "x y");
  EXPECT_EQ(strip(" \f\v "), "");
  EXPECT_EQ(strip(""), "");
}

TEST(BaseStrings, SplitKeepsEveryPiece) {
  EXPECT_EQ(split("a.b.c", '.'), (Views{"a", "b", "c"}));
  EXPECT_EQ(split("a..b.", '.'), (Views{"a", "", "b", ""}));
  EXPECT_EQ(split("", '.'), (Views{""}));
}

TEST(BaseStrings, JoinTakesASlice) {
  const std::vector<std::string> parts = {"Torch", "add", "0", "forward"};
  EXPECT_EQ(join(parts, "."), "Torch.add.0.forward");
  EXPECT_EQ(join(parts, ".", 1, 3), "add.0");
  EXPECT_EQ(join(parts, ", ", 2, 99), "0, forward");
  EXPECT_EQ(join(parts, ".", 3, 1), "");
  EXPECT_EQ(join(split("a.b.c", '.'), "/"), "a/b/c");
}

}  // namespace
}  // namespace msprobe
