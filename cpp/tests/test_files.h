// Files for the C++ tests: a whole file read, a new file written, a fresh temporary folder, a
// fixture of the source tree.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace msprobe {
namespace test {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A new file each time: truncating and rewriting one makes ext4 flush it on close (auto_da_alloc),
// which made the every-byte loops I/O bound.
inline void write_file(const std::string& path, std::string_view text) {
  ::unlink(path.c_str());
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh folder /tmp/PREFIX_XXXXXX.
inline std::string temp_dir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "_XXXXXX";
  EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

// The root of the source tree (defined in a file CMake generates, so that no other object
// depends on where the tree is: ccache shares them between checkouts).
const char* source_dir();

// A file of the source tree, `rel` from its root ("/tests/fixtures/...").
inline std::string fixture(const std::string& rel) { return read_file(std::string(source_dir()) + rel); }

}  // namespace test
}  // namespace msprobe
