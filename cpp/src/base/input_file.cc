// Input files named by the user: see input_file.h.
#include "msprobe/base/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"

namespace msprobe {

void check_input_file(const std::string& path, const std::string& what) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    throw FileError(
        what + " " + path + ": " +
        (errno == ENOENT || errno == ENOTDIR ? std::string("no such file") : std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) throw FileError(what + " " + path + ": is a symbolic link; pass the file itself");
  if (S_ISDIR(st.st_mode)) throw FileError(what + " " + path + ": is a folder, expected a file");
  if (!S_ISREG(st.st_mode)) throw FileError(what + " " + path + ": not a regular file");
}

void check_input_file_of_kind(const std::string& path, const std::string& what, const std::string& suffix,
                              const std::string& expected) {
  if (path.empty()) throw FileError(what + ": no path given");
  check_input_file(path, what);
  if (!ends_with(path, suffix)) {
    throw FileError(what + " " + path + ": must be a " + suffix + " file" +
                    (expected.empty() ? std::string() : " (" + expected + ")"));
  }
  if (::access(path.c_str(), R_OK) != 0) throw FileError(what + " " + path + ": not readable");
}

void check_input_csv_path(const std::string& path, const char* what) {
  check_input_file_of_kind(path, what, ".csv", "an accuracy_checking_details_*.csv from run_ut");
}

}  // namespace msprobe
