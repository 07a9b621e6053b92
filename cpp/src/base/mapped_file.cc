// Read-only whole-file mappings: see mapped_file.h.
#include "msprobe/base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "msprobe/base/error.h"

namespace msprobe {

MappedFile::MappedFile(const std::string& path, unsigned flags)
    : path_(path), cow_((flags & kCopyOnWrite) != 0) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | ((flags & kNoFollow) ? O_NOFOLLOW : 0));
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) throw FileError(path + ": no such file");
    if (e == ELOOP) throw FileError(path + ": is a symbolic link, refused");
    throw FileError(path + ": cannot open the file for reading: " + std::strerror(e));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw FileError(path + ": cannot access the file: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(path +
                    (S_ISDIR(st.st_mode) ? ": is a directory, expected a file" : ": is not a regular file"));
  }
  size_ = (size_t)st.st_size;
  if (size_ > 0) {
    map_ = ::mmap(nullptr, size_, cow_ ? PROT_READ | PROT_WRITE : PROT_READ, MAP_PRIVATE, fd, 0);
    if (map_ == MAP_FAILED) {
      const int e = errno;
      map_ = nullptr;
      ::close(fd);
      throw FileError(path + ": cannot map the file: " + std::strerror(e));
    }
    data_ = static_cast<const unsigned char*>(map_);
    if (flags & kSequential) (void)::madvise(map_, size_, MADV_SEQUENTIAL);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (map_) ::munmap(map_, size_);
}

}  // namespace msprobe
