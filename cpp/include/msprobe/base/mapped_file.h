// A read-only memory mapping of a whole file: readers parse in place instead of copying the file
// into memory (dump.json of several GB, tensor files).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace msprobe {

class MappedFile {
 public:
  enum Flags : unsigned {
    kNoFollow = 1,     // refuse a symbolic link as the last component
    kCopyOnWrite = 2,  // private writable pages (a write copies the page; the file never changes),
                       // for tensors handed to frameworks that may modify them in place
    kSequential = 4,   // read front to back once (readahead; pages behind may be dropped early)
  };
  // Throws FileError ("<path>: no such file" / "is a directory" / "is not a regular file" /
  // "cannot open ...") naming the path.
  explicit MappedFile(const std::string& path, unsigned flags = 0);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  const unsigned char* data() const { return data_; }
  // Only with kCopyOnWrite.
  unsigned char* writable_data() const { return cow_ ? const_cast<unsigned char*>(data_) : nullptr; }
  size_t size() const { return size_; }
  std::string_view text() const { return std::string_view((const char*)data_, size_); }

 private:
  std::string path_;
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
  bool cow_ = false;
};

}  // namespace msprobe
