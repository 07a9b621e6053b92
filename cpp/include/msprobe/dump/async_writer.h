// Background writer of a dump (wakes every 100 ms, or sooner when much is queued): JSON object
// files that grow member by member, plus whole files (tensors). Memory held by queued work is
// bounded: producers wait when the bound is reached (backpressure). The first I/O error is kept;
// later work is dropped.
//
// Crash safety of the object files. A file is created whole (written aside, then renamed), and
// each later write appends members and rewrites the closing text behind them, so the file is a
// complete JSON document after every write. A kill can still stop a write at a page boundary (the
// kernel checks for fatal signals between pages), so:
//  - no write crosses more than one 4 KiB boundary unless a single member is larger than that;
//    the first page of such a write is already cached and dirty, so a kill rarely lands in it;
//  - spaces are kept on disk behind the closing text (the runway, cut off at close), so appending
//    never grows the file: growing it updates the inode between two pages of the write;
//  - the closing text never straddles a page boundary (a few spaces go before it instead), so a
//    cut never leaves a piece of it behind the new bytes.
// Measured with cpp/tests/writer_kill_test.cc (a process appending as fast as it can, killed at
// random): about 4% of kills cut a file, against about 30% with one write per batch. Whatever
// survives a kill is the complete members, in order, then the start of the next one and spaces:
// readers recover every complete member (reader/ and `msprobe repair`).
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
  // indented at `member_depth`. `reorderable`: keeps where each member is (a few bytes per member)
  // for reorder_object_file. Returns a file id. Throws FileError when the file cannot be made.
  int open_object_file(const std::string& path, const std::string& header, const std::string& tail,
                       int member_depth, bool reorderable = false);
  // Appends `"key": value` (value text already rendered at member_depth) to the object.
  void append_member(int file_id, std::string member_text);
  // Rewrites the file with the members `order` (member numbers, counted from 0 in the order they
  // were appended, each at most once; members not listed are dropped) by atomic replacement.
  // Appending goes on behind them. A no-op when the file already holds exactly that.
  void reorder_object_file(int file_id, std::vector<uint32_t> order);
  // Writes a whole file (mode 0640).
  void write_file(std::string path, std::string contents);
  // Makes `path` a hard link to `existing` (written earlier through this writer): the same tensor
  // saved under a second name costs no I/O. Falls back to writing `contents` if linking fails.
  void link_file(std::string existing, std::string path, std::string contents);
  // Replaces the text after the object (the `tail` given at open), once the members queued before
  // are written: a note that follows the members (dump.json's "probe_disabled").
  void set_tail(int file_id, std::string tail);
  // Stops appending to a file once its queued members are written.
  void close_object_file(int file_id);
  // Blocks until everything queued so far has been handed to the OS.
  void flush();

  bool failed() const;
  std::string error() const;
  size_t pending_bytes() const;

 private:
  struct Item {
    enum class Kind { kMember, kFile, kLink, kClose, kReorder, kTail } kind;
    int file_id;
    std::string path;
    std::string text;
    std::string link_target;      // kLink: the existing file
    std::vector<uint32_t> order;  // kReorder
  };
  struct Span {  // one member's text in the file
    int64_t offset;
    uint32_t length;
  };
  // Members of one batch for one file: their text joined with separators, and where each starts.
  struct Pending {
    std::string text;
    std::vector<size_t> starts;  // offset in `text` of each member's separator
  };
  struct ObjectFile {
    std::string path;
    std::string tail;
    int fd = -1;
    int member_depth = 1;
    int64_t header_end = 0;   // offset after the opening "{"
    int64_t members_end = 0;  // offset where the next member (or the closing brace) goes
    int64_t file_size = 0;    // closing text, then spaces up to here
    bool empty = true;
    bool reorderable = false;
    uint32_t members = 0;
    std::vector<Span> spans;        // by member number
    std::vector<uint32_t> in_file;  // member numbers in file order
  };
  void enqueue(Item item);
  void run();
  void process(std::vector<Item>& batch);
  std::string closing(const ObjectFile& f) const;
  bool write_members(ObjectFile& f, Pending& p);
  bool reorder(ObjectFile& f, const std::vector<uint32_t>& order);
  void extend_runway(ObjectFile& f, int64_t end);
  static int64_t closing_pad(int64_t at, size_t size);
  void trim_runway(ObjectFile& f);
  void restore_closing(ObjectFile& f);
  bool replace_tail(ObjectFile& f, std::string tail);
  void fail(const std::string& what, int err);
  bool write_two_at(int fd, const char* a, size_t na, const std::string& b, int64_t offset,
                    const std::string& path);

  const size_t limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_work_, cv_space_, cv_done_;
  std::deque<Item> queue_;
  size_t queued_bytes_ = 0;
  uint64_t enqueued_ = 0, completed_ = 0;
  bool stop_ = false;
  int flush_requests_ = 0;
  int space_waiters_ = 0;  // producers waiting for queue space
  bool failed_ = false;
  std::string error_;
  std::deque<ObjectFile> files_;  // stable addresses; fields used by the writer thread only
  std::thread thread_;
};

}  // namespace msprobe
