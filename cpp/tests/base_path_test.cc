// The shared path helpers (msprobe/base/path.h): every spelling the tools relied on.
#include "msprobe/base/path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace msprobe {
namespace {

TEST(BasePath, FolderOf) {
  EXPECT_EQ(folder_of("dump.json"), ".");
  EXPECT_EQ(folder_of("/dump.json"), "/");
  EXPECT_EQ(folder_of("a/b/dump.json"), "a/b");
  EXPECT_EQ(folder_of("a/b/"), "a/b");
  EXPECT_EQ(folder_of("a//dump.json"), "a/");
}

TEST(BasePath, JoinAndFileName) {
  EXPECT_EQ(join_path("a", "b.json"), "a/b.json");
  EXPECT_EQ(join_path("a/", "b.json"), "a/b.json");
  EXPECT_EQ(join_path("/", "b.json"), "/b.json");
  EXPECT_EQ(join_path("", "b.json"), "/b.json");
  EXPECT_EQ(file_name_of("a/rank3"), "rank3");
  EXPECT_EQ(file_name_of("rank3"), "rank3");
  EXPECT_EQ(file_name_of("a/"), "");
}

TEST(BasePath, FileTestsAndNumberedNames) {
  char tmpl[] = "/tmp/msprobe_path_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  for (const char* d : {"rank10", "rank2", "rank", "rankx", "step1"}) ::mkdir((dir + "/" + d).c_str(), 0700);
  std::FILE* f = std::fopen((dir + "/rank3").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_EQ(::symlink("rank3", (dir + "/link").c_str()), 0);

  EXPECT_EQ(numbered_names(dir, "rank"), (std::vector<std::string>{"rank", "rank2", "rank3", "rank10"}));
  EXPECT_TRUE(numbered_names(dir + "/missing", "rank").empty());
  EXPECT_TRUE(is_regular_file(dir + "/rank3"));
  EXPECT_TRUE(is_regular_file(dir + "/link"));
  EXPECT_TRUE(is_regular_file_not_link(dir + "/rank3"));
  EXPECT_FALSE(is_regular_file_not_link(dir + "/link"));
  EXPECT_FALSE(is_regular_file(dir + "/rank2"));
  EXPECT_TRUE(is_folder(dir + "/rank2"));
  EXPECT_FALSE(is_folder(dir + "/rank3"));
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace msprobe
