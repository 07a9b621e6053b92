// Atomic replacement of a file: see atomic_file.h.
#include "msprobe/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "msprobe/base/error.h"
#include "msprobe/base/path.h"

namespace msprobe {

namespace {
constexpr size_t kBufferBytes = 1u << 20;

[[noreturn]] void io_error(const char* what, const std::string& path, int err) {
  throw FileError(std::string(what) + " " + path + ": " + std::strerror(err));
}
}  // namespace

std::string AtomicFile::temp_path_for(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + "." + std::to_string(::getpid()) + ".msprobe-tmp";
}

AtomicFile::AtomicFile(std::string path, mode_t mode) : path_(std::move(path)), temp_(temp_path_for(path_)) {
  ::unlink(temp_.c_str());  // a leftover of a killed process
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd_ < 0) io_error("cannot create", temp_, errno);
  ::fchmod(fd_, mode);  // whatever the umask
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::drain() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t w = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      io_error("cannot write", temp_, errno);
    }
    done += (size_t)w;
  }
  written_ += buffer_.size();
  buffer_.clear();
}

void AtomicFile::append(std::string_view bytes) {
  if (buffer_.size() + bytes.size() > kBufferBytes) {
    drain();
    if (bytes.size() > kBufferBytes) {
      buffer_.assign(bytes.data(), bytes.size());
      drain();
      return;
    }
  }
  if (buffer_.capacity() < kBufferBytes) buffer_.reserve(kBufferBytes);
  buffer_.append(bytes.data(), bytes.size());
}

int AtomicFile::commit(bool durable, bool keep_open) {
  drain();
  if (durable && ::fsync(fd_) != 0) io_error("cannot write", temp_, errno);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) io_error("cannot replace", path_, errno);
  committed_ = true;
  if (durable) sync_parent_dir(path_);
  const int fd = fd_;
  fd_ = -1;
  if (keep_open) return fd;
  ::close(fd);
  return -1;
}

void sync_parent_dir(const std::string& path) {
  const int dfd = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;  // durability of the name only; the contents are already synced
  (void)::fsync(dfd);
  ::close(dfd);
}

void write_file_atomically(const std::string& path, std::string_view text, mode_t mode) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw FileError(path + ": is a symbolic link; refusing to write through it");
  AtomicFile f(path, mode);
  f.append(text);
  f.commit(/*durable=*/false);
}

}  // namespace msprobe
