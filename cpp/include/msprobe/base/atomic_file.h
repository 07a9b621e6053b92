// A file replaced all at once: the new contents go to a hidden temporary file beside the target,
// which is renamed over it (fsynced first when durability is asked for). Readers, and whatever
// survives a kill, see the old file or the new one, never a mix.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>

namespace msprobe {

class AtomicFile {
 public:
  // Creates the temporary file (mode `mode`). Throws FileError naming `path`.
  explicit AtomicFile(std::string path, mode_t mode = 0640);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void append(std::string_view bytes);  // buffered
  // Writes what is buffered, renames over the target. `durable`: fsyncs the file first and the
  // folder after, so that a power cut leaves the old file or the new one (without it, only a
  // killed process is covered). Returns the open descriptor of the new file (the caller owns it)
  // when `keep_open`, else closes it and returns -1.
  int commit(bool durable, bool keep_open = false);
  uint64_t size() const { return written_ + buffer_.size(); }

  // The temporary name used for `path` (".<name>.<pid>.msprobe-tmp" in the same folder, so that
  // processes never share one): a leftover of a process killed mid-replacement, safe to delete.
  static std::string temp_path_for(const std::string& path);

 private:
  void drain();
  std::string path_, temp_;
  int fd_ = -1;
  bool committed_ = false;
  std::string buffer_;
  uint64_t written_ = 0;
};

// fsync of the folder holding `path`, so that a rename or a new name in it is durable.
void sync_parent_dir(const std::string& path);

// A whole small output file (advisor, yaml, report page) replaced at once with `mode`; refuses
// to write through a symbolic link at `path`. Throws FileError naming the path.
void write_file_atomically(const std::string& path, std::string_view text, mode_t mode = 0640);

}  // namespace msprobe
