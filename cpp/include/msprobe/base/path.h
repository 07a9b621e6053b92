// Path strings and folder entries, the one place for them: POSIX paths joined and split as text
// (nothing normalised, no link resolved), and plain stat()-based tests.
#pragma once
#include <string>
#include <vector>

namespace msprobe {

// The folder holding `path`: "." for a bare name, "/" for an entry of the root folder, else the
// text before the last '/'.
std::string folder_of(const std::string& path);
// `name` inside `dir`: one '/' between them unless `dir` already ends in one.
std::string join_path(const std::string& dir, const std::string& name);
// The last component of `path`: the text after the last '/', or all of it.
std::string file_name_of(const std::string& path);
// `path` made absolute against the working folder: leading "./" dropped, trailing '/' too;
// an absolute path, or one when the working folder cannot be read, is returned as it is.
std::string absolute_path(const std::string& path);

// A regular file at `path`, symbolic links followed.
bool is_regular_file(const std::string& path);
// A regular file at `path` itself; a symbolic link is not one, whatever it points to.
bool is_regular_file_not_link(const std::string& path);
// A folder at `path`, symbolic links followed.
bool is_folder(const std::string& path);

// Names in `dir` that are `prefix` followed by digits, or `prefix` alone, in numeric order
// (shorter names first, then by text); none when the folder cannot be read.
std::vector<std::string> numbered_names(const std::string& dir, const std::string& prefix);

}  // namespace msprobe
