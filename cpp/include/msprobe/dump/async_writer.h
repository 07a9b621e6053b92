// Background writer of a dump (wakes every 100 ms, or sooner when much is queued): JSON object files that grow member by member and stay a
// parseable document on disk after every write (so a kill -9 loses at most the records still
// queued), plus whole files (tensors). Memory held by queued work is bounded: producers wait
// when the bound is reached (backpressure). The first I/O error is kept; later work is dropped.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace msprobe {

class AsyncWriter {
 public:
  explicit AsyncWriter(size_t memory_limit_bytes);
  ~AsyncWriter();
  AsyncWriter(const AsyncWriter&) = delete;
  AsyncWriter& operator=(const AsyncWriter&) = delete;

  // Creates (truncates) a JSON file `header + "}" + tail`, where `header` ends with the "{" of the
  // object that members are appended to and `tail` closes the rest of the document. Members are
  // indented at `member_depth`. Returns a file id.
  int open_object_file(const std::string& path, const std::string& header, const std::string& tail,
                       int member_depth);
  // Appends `"key": value` (value text already rendered at member_depth) to the object.
  void append_member(int file_id, std::string member_text);
  // Writes a whole file (mode 0640).
  void write_file(std::string path, std::string contents);
  // Makes `path` a hard link to `existing` (written earlier through this writer): the same tensor
  // saved under a second name costs no I/O. Falls back to writing `contents` if linking fails.
  void link_file(std::string existing, std::string path, std::string contents);
  // Stops appending to a file once its queued members are written.
  void close_object_file(int file_id);
  // Blocks until everything queued so far has been handed to the OS.
  void flush();

  bool failed() const;
  std::string error() const;
  size_t pending_bytes() const;

 private:
  struct Item {
    enum class Kind { kMember, kFile, kLink, kClose } kind;
    int file_id;
    std::string path;
    std::string text;
    std::string link_target;  // kLink: the existing file
  };
  struct ObjectFile {
    std::string path;
    std::string tail;
    int fd = -1;
    int member_depth = 1;
    int64_t members_end = 0;  // offset where the next member (or the closing brace) goes
    bool empty = true;
  };
  void enqueue(Item item);
  void run();
  void process(std::vector<Item>& batch);
  bool write_members(ObjectFile& f, std::string& members);
  void restore_closing(ObjectFile& f);
  void fail(const std::string& what, int err);
  bool write_all_at(int fd, const std::string& data, int64_t offset, const std::string& path);

  const size_t limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_work_, cv_space_, cv_done_;
  std::deque<Item> queue_;
  size_t queued_bytes_ = 0;
  uint64_t enqueued_ = 0, completed_ = 0;
  bool stop_ = false;
  int flush_requests_ = 0;
  bool failed_ = false;
  std::string error_;
  std::deque<ObjectFile> files_;  // stable addresses; fields used by the writer thread only
  std::thread thread_;
};

}  // namespace msprobe
