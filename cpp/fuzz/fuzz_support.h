// Shared by the libFuzzer targets: a scratch folder (tmpfs when there is one) for parsers that
// read files, splitting one input into several files, and the rule that a parser may reject
// input only with its documented error types.
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace msprobe_fuzz {

// A folder of this process, emptied at start and removed at exit (write_file makes it again if
// it was removed).
inline const std::string& scratch() {
  // Never destroyed: the exit handler that removes the folder runs after static destructors.
  static const std::string* dir = [] {
    const char* base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    auto* d = new std::string(std::string(base) + "/msprobe_fuzz_" + std::to_string(::getpid()));
    std::filesystem::remove_all(*d);
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch(), ec);
    });
    return d;
  }();
  return *dir;
}

inline std::string write_file(const std::string& name, std::string_view bytes) {
  const std::string path = scratch() + "/" + name;
  if (::unlink(path.c_str()) != 0) std::filesystem::create_directories(scratch());
  std::ofstream(path, std::ios::binary).write(bytes.data(), (std::streamsize)bytes.size());
  return path;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// The input as `n` files: parts separated by the line "@@@@" (missing parts are empty).
inline std::vector<std::string_view> split(std::string_view in, size_t n) {
  static constexpr std::string_view kSep = "\n@@@@\n";
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    const size_t at = in.find(kSep);
    if (at == std::string_view::npos) break;
    parts.push_back(in.substr(0, at));
    in.remove_prefix(at + kSep.size());
  }
  parts.push_back(in);
  parts.resize(n);
  return parts;
}

}  // namespace msprobe_fuzz
