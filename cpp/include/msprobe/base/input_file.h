// An input file named by the user, checked before any work starts: it exists, is a regular file
// and is not a symbolic link (links are refused, as 1.2.1 refuses them). Errors are one line,
// "<what> <path>: <problem>", with `what` the option or key that named the file.
#pragma once
#include <string>

namespace msprobe {

// Throws FileError: no such file / is a symbolic link / is a folder / not a regular file.
void check_input_file(const std::string& path, const std::string& what);

// The same, and also named *<suffix> and readable; an empty path is "no path given".
// `expected` ("" or e.g. "a dump.json") follows the wrong-suffix message.
void check_input_file_of_kind(const std::string& path, const std::string& what, const std::string& suffix,
                              const std::string& expected = "");
// A CSV of api_precision_compare's -npu / -gpu.
void check_input_csv_path(const std::string& path, const char* what);

}  // namespace msprobe
