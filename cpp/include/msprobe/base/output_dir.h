// Where a command writes: its output folder, made and checked before any work, and the timestamp
// its file names carry. Folders are made with mode 0750 whatever the umask; a symbolic link on
// the way is refused, as 1.2.1 refuses it.
#pragma once
#include <string>

namespace msprobe {

// mkdir -p `path`: each missing folder made with mode 0750. An existing part must be a folder
// (not a link to one). Throws FileError "<what> <folder>: cannot create: <reason>" or
// "<what> <folder>: not a folder".
void make_dirs(const std::string& path, const std::string& what);

// Creates `out_dir` ("" is the working folder) and its parents if needed; refuses a symbolic
// link or a folder that cannot be written. Throws FileError naming the output path.
void prepare_output_dir(const std::string& out_dir);

// Local time as %Y%m%d%H%M%S, the stamp of every output file name.
std::string timestamp_now();

}  // namespace msprobe
