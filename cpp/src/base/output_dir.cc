// Output folders and timestamps: see output_dir.h.
#include "msprobe/base/output_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "msprobe/base/error.h"

namespace msprobe {

void make_dirs(const std::string& path, const std::string& what) {
  struct stat st;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    const std::string partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::lstat(partial.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) throw FileError(what + " " + partial + ": not a folder");
      continue;
    }
    if (::mkdir(partial.c_str(), 0750) != 0 && errno != EEXIST) {
      throw FileError(what + " " + partial + ": cannot create: " + std::strerror(errno));
    }
    ::chmod(partial.c_str(), 0750);
  }
}

void prepare_output_dir(const std::string& out_dir) {
  const std::string dir = out_dir.empty() ? "./" : out_dir;
  struct stat st;
  if (::lstat(dir.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      throw FileError("output path " + dir + ": is a symbolic link; pass the real folder");
    }
    if (!S_ISDIR(st.st_mode)) throw FileError("output path " + dir + ": not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw FileError("output path " + dir + ": not writable");
    }
    return;
  }
  make_dirs(dir, "output path");
}

std::string timestamp_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%d%H%M%S", &tm);
  return buf;
}

}  // namespace msprobe
