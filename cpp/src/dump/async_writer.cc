// Background writer: see async_writer.h.
#include "msprobe/dump/async_writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/format/buffer_pool.h"

namespace msprobe {

namespace {
constexpr mode_t kFileMode = 0640;
// The writer wakes on its own this often; producers only signal it when this much is queued,
// so recording a small entry costs no system call.
constexpr auto kWritePeriod = std::chrono::milliseconds(100);
constexpr size_t kWakeBytes = 4u << 20;
// Cut points of a killed write are multiples of this (the smallest page size).
constexpr int64_t kPage = 4096;
// Whitespace kept on disk behind the closing text, so that appending members never grows the
// file: a write that grows it updates the inode (ext4 may wait for its journal there) between its
// first page and the next, which is where a kill would cut it.
constexpr int64_t kRunway = 64 * 1024;
}  // namespace

AsyncWriter::AsyncWriter(size_t memory_limit_bytes) : limit_(memory_limit_bytes), thread_([this] { run(); }) {
  // Reused file buffers live beside the queue: keep them a small share of the writer's budget.
  set_output_buffer_pool_limit(std::min(size_t(64) << 20, memory_limit_bytes / 8));
}

AsyncWriter::~AsyncWriter() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_work_.notify_all();
  thread_.join();
  for (auto& f : files_)
    if (f.fd >= 0) ::close(f.fd);
}

int AsyncWriter::open_object_file(const std::string& path, const std::string& header, const std::string& tail,
                                  int member_depth, bool reorderable) {
  // Made aside and renamed: the name never shows an empty or half-written file, and an old file of
  // that name (a rerun into the same dump_path) stays whole until the new one replaces it.
  AtomicFile file(path, kFileMode);
  file.append(header);
  const int64_t pad = closing_pad((int64_t)header.size(), 1 + tail.size());
  file.append(std::string((size_t)pad, ' '));  // a very long header (dump_data_dir)
  file.append("}");
  file.append(tail);
  ObjectFile f;
  f.path = path;
  f.tail = tail;
  f.fd = file.commit(/*durable=*/false, /*keep_open=*/true);
  f.member_depth = member_depth;
  f.header_end = (int64_t)header.size();
  f.members_end = f.header_end + pad;
  f.file_size = (int64_t)file.size();
  f.reorderable = reorderable;
  std::lock_guard<std::mutex> lk(mu_);
  files_.push_back(std::move(f));
  return (int)files_.size() - 1;
}

void AsyncWriter::enqueue(Item item) {
  std::unique_lock<std::mutex> lk(mu_);
  if (failed_) return;
  const size_t n = item.text.size();
  auto has_space = [&] { return failed_ || queued_bytes_ == 0 || queued_bytes_ + n <= limit_; };
  if (!has_space()) {
    // Full: the writer must not sleep out its period while a producer (training) waits.
    ++space_waiters_;
    cv_work_.notify_one();
    cv_space_.wait(lk, has_space);
    --space_waiters_;
  }
  if (failed_) return;
  queue_.push_back(std::move(item));
  queued_bytes_ += n;
  ++enqueued_;
  const bool wake = queued_bytes_ >= kWakeBytes;
  lk.unlock();
  if (wake) cv_work_.notify_one();
}

void AsyncWriter::append_member(int file_id, std::string member_text) {
  enqueue(Item{Item::Kind::kMember, file_id, {}, std::move(member_text), {}});
}

void AsyncWriter::reorder_object_file(int file_id, std::vector<uint32_t> order) {
  Item it{Item::Kind::kReorder, file_id, {}, {}, {}};
  it.order = std::move(order);
  enqueue(std::move(it));
}

void AsyncWriter::write_file(std::string path, std::string contents) {
  enqueue(Item{Item::Kind::kFile, -1, std::move(path), std::move(contents), {}});
}

void AsyncWriter::link_file(std::string existing, std::string path, std::string contents) {
  enqueue(Item{Item::Kind::kLink, -1, std::move(path), std::move(contents), std::move(existing)});
}

void AsyncWriter::set_tail(int file_id, std::string tail) {
  enqueue(Item{Item::Kind::kTail, file_id, {}, std::move(tail), {}});
}

void AsyncWriter::close_object_file(int file_id) {
  std::unique_lock<std::mutex> lk(mu_);
  queue_.push_back(Item{Item::Kind::kClose, file_id, {}, {}, {}});
  ++enqueued_;
  lk.unlock();
  cv_work_.notify_one();
}

void AsyncWriter::flush() {
  std::unique_lock<std::mutex> lk(mu_);
  const uint64_t target = enqueued_;
  if (completed_ >= target) return;
  ++flush_requests_;
  cv_work_.notify_one();
  cv_done_.wait(lk, [&] { return completed_ >= target; });
  --flush_requests_;
}

bool AsyncWriter::failed() const {
  std::lock_guard<std::mutex> lk(mu_);
  return failed_;
}

std::string AsyncWriter::error() const {
  std::lock_guard<std::mutex> lk(mu_);
  return error_;
}

size_t AsyncWriter::pending_bytes() const {
  std::lock_guard<std::mutex> lk(mu_);
  return queued_bytes_;
}

void AsyncWriter::fail(const std::string& what, int err) {
  std::lock_guard<std::mutex> lk(mu_);
  if (failed_) return;
  failed_ = true;
  error_ = err ? what + ": " + std::strerror(err) : what;
  cv_space_.notify_all();
}

// pwritev of `a` (na may be 0) then `b`, going on after short writes.
bool AsyncWriter::write_two_at(int fd, const char* a, size_t na, const std::string& b, int64_t offset,
                               const std::string& path) {
  size_t done = 0;
  const size_t total = na + b.size();
  while (done < total) {
    struct iovec iov[2];
    int n = 0;
    if (done < na) iov[n++] = {const_cast<char*>(a) + done, na - done};
    const size_t bdone = done > na ? done - na : 0;
    iov[n++] = {const_cast<char*>(b.data()) + bdone, b.size() - bdone};
    const ssize_t w = ::pwritev(fd, iov, n, (off_t)(offset + (int64_t)done));
    if (w < 0) {
      if (errno == EINTR) continue;
      fail("cannot write " + path, errno);
      return false;
    }
    done += (size_t)w;
  }
  return true;
}

void AsyncWriter::run() {
  std::vector<Item> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_work_.wait_for(lk, kWritePeriod, [&] {
        return stop_ || flush_requests_ > 0 || queued_bytes_ >= kWakeBytes || space_waiters_ > 0;
      });
      if (queue_.empty() && stop_) return;
      if (queue_.empty()) continue;
      batch.clear();
      while (!queue_.empty()) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    size_t freed = 0;  // counted first: process() hands written buffers to the pool
    for (auto& it : batch) freed += it.text.size();
    process(batch);
    {
      std::lock_guard<std::mutex> lk(mu_);
      queued_bytes_ -= freed;
      completed_ += batch.size();
    }
    cv_space_.notify_all();
    cv_done_.notify_all();
  }
}

// The text after the members: the object's "}" (on its own line once it has members) and the tail.
std::string AsyncWriter::closing(const ObjectFile& f) const {
  std::string c;
  if (f.empty) {
    c = "}";
  } else {
    c = "\n";
    c.append((size_t)f.member_depth - 1, ' ');
    c += '}';
  }
  c += f.tail;
  return c;
}

// Spaces to put before a closing text of `size` bytes that would start at `at`, so that it does
// not straddle a page boundary. The next write starts on the closing text; were its first bytes in
// one page and the rest in the next, a kill at that boundary would leave the start of a separator
// followed by the rest of the old closing text (",}"): malformed, not just cut.
int64_t AsyncWriter::closing_pad(int64_t at, size_t size) {
  const int64_t in_page = at % kPage;
  return in_page + (int64_t)size > kPage ? kPage - in_page : 0;
}

// Writes the batch's members behind the last one, each write followed by the closing text, in
// writes that end at most one page boundary further (see the header): a kill between two writes
// leaves a complete document.
bool AsyncWriter::write_members(ObjectFile& f, Pending& p) {
  const size_t n = p.starts.size();
  if (n == 0) return true;
  const bool was_empty = f.empty;
  f.empty = false;  // the closing text that follows members
  const std::string close = closing(f);
  size_t i = 0;
  while (i < n) {
    const int64_t pos = f.members_end;
    const int64_t limit = (pos / kPage + 2) * kPage;
    auto end_of = [&](size_t j) { return j + 1 < n ? p.starts[j + 1] : p.text.size(); };
    size_t j = i + 1;  // one member at least, even when it is larger than the window
    while (j < n && pos + (int64_t)(end_of(j) - p.starts[i] + close.size()) <= limit) ++j;
    // Where the closing text would straddle a page boundary, end the write a member earlier, or
    // else put a few spaces before it (see closing_pad).
    while (j > i + 1 && closing_pad(pos + (int64_t)(end_of(j - 1) - p.starts[i]), close.size())) --j;
    const size_t len = end_of(j - 1) - p.starts[i];
    const size_t pad = closing_pad(pos + (int64_t)len, close.size());
    const std::string after = pad ? std::string(pad, ' ') + close : close;
    extend_runway(f, pos + (int64_t)(len + after.size()));
    if (!write_two_at(f.fd, p.text.data() + p.starts[i], len, after, pos, f.path)) {
      f.empty = was_empty && i == 0;
      restore_closing(f);
      return false;
    }
    f.file_size = std::max(f.file_size, pos + (int64_t)(len + after.size()));
    if (f.reorderable) {
      for (size_t k = i; k < j; ++k) {
        // The member's text starts after its separator: "," (except the first), "\n", indent.
        const size_t sep = (f.members == 0 ? 1 : 2) + (size_t)f.member_depth;
        const int64_t off = pos + (int64_t)(p.starts[k] - p.starts[i] + sep);
        f.spans.push_back(Span{off, (uint32_t)(end_of(k) - p.starts[k] - sep)});
        f.in_file.push_back(f.members);
        ++f.members;
      }
    } else {
      f.members += (uint32_t)(j - i);
    }
    f.members_end += (int64_t)(len + pad);
    i = j;
  }
  p.text.clear();
  p.starts.clear();
  return true;
}

// Makes the file at least `end` bytes long, the new bytes spaces (trailing whitespace keeps the
// document valid, whatever part of this write survives a kill). Best effort: near a full disk or a
// file size limit the members are written without runway.
void AsyncWriter::extend_runway(ObjectFile& f, int64_t end) {
  if (end <= f.file_size) return;
  const int64_t target = (end + kRunway + kPage - 1) / kPage * kPage;
  const std::string spaces((size_t)(target - f.file_size), ' ');
  size_t done = 0;
  while (done < spaces.size()) {
    const ssize_t w =
        ::pwrite(f.fd, spaces.data() + done, spaces.size() - done, (off_t)(f.file_size + (int64_t)done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += (size_t)w;
  }
  f.file_size += (int64_t)done;
}

// Cuts the runway off: the file ends with its closing text, as json.dump would write it.
void AsyncWriter::trim_runway(ObjectFile& f) {
  const int64_t end = f.members_end + (int64_t)closing(f).size();
  if (f.file_size > end && ::ftruncate(f.fd, (off_t)end) == 0) f.file_size = end;
}

// Rewrites the file with the members `order` (member numbers) by atomic replacement; the new file
// takes over the descriptor, so appending goes on behind them.
bool AsyncWriter::reorder(ObjectFile& f, const std::vector<uint32_t>& order) {
  if (!f.reorderable || order == f.in_file) return true;
  std::vector<char> seen(f.members, 0);
  for (uint32_t id : order) {
    // Not a valid order (a member twice, unknown or dropped before): keep the file as it is.
    if (id >= f.members || seen[id] || f.spans[id].offset < 0) return true;
    seen[id] = 1;
  }
  const int in = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (in < 0) {
    fail("cannot read " + f.path, errno);
    return false;
  }
  const size_t old_size = (size_t)f.members_end;
  void* map = old_size ? ::mmap(nullptr, old_size, PROT_READ, MAP_PRIVATE, in, 0) : nullptr;
  ::close(in);
  if (map == MAP_FAILED) {
    fail("cannot read " + f.path, errno);
    return false;
  }
  const char* old = static_cast<const char*>(map);
  try {
    AtomicFile out(f.path, kFileMode);
    out.append(std::string_view(old, (size_t)f.header_end));
    std::string sep = "\n";
    sep.append((size_t)f.member_depth, ' ');
    std::vector<Span> spans(f.spans.size(), Span{-1, 0});  // dropped members keep offset -1
    for (size_t k = 0; k < order.size(); ++k) {
      out.append(k ? "," + sep : sep);
      const Span& s = f.spans[order[k]];
      spans[order[k]] = Span{(int64_t)out.size(), s.length};
      out.append(std::string_view(old + s.offset, s.length));
    }
    out.append(std::string((size_t)closing_pad((int64_t)out.size(), closing(f).size()), ' '));
    const int64_t members_end = (int64_t)out.size();
    out.append(closing(f));
    const int fd = out.commit(/*durable=*/true, /*keep_open=*/true);
    ::munmap(map, old_size);
    ::close(f.fd);
    f.fd = fd;
    f.spans.swap(spans);
    f.in_file = order;
    f.members_end = members_end;
    f.file_size = (int64_t)out.size();
    return true;
  } catch (const FileError& e) {
    ::munmap(map, old_size);
    fail(e.what(), 0);
    return false;
  }
}

// Writes the closing text with the new tail where the old one was, padded with spaces over what
// is left of the old one, the same way members are written (not across a page boundary).
bool AsyncWriter::replace_tail(ObjectFile& f, std::string tail) {
  const size_t old_size = closing(f).size();
  f.tail = std::move(tail);
  const std::string close = closing(f);
  const int64_t pad = closing_pad(f.members_end, close.size());
  std::string text((size_t)pad, ' ');
  text += close;
  if (text.size() < old_size) text.append(old_size - text.size(), ' ');
  extend_runway(f, f.members_end + (int64_t)text.size());
  if (!write_two_at(f.fd, nullptr, 0, text, f.members_end, f.path)) {
    restore_closing(f);
    return false;
  }
  f.file_size = std::max(f.file_size, f.members_end + (int64_t)text.size());
  f.members_end += pad;
  return true;
}

// After a failed write (disk full, file too large): put the closing text back right after the
// last complete member and cut what follows, so the records already written stay parseable.
// This needs no new space: it rewrites bytes inside the file and truncates.
void AsyncWriter::restore_closing(ObjectFile& f) {
  const std::string c = closing(f);
  ssize_t w = ::pwrite(f.fd, c.data(), c.size(), (off_t)f.members_end);
  if (w == (ssize_t)c.size() && ::ftruncate(f.fd, (off_t)(f.members_end + (int64_t)c.size())) == 0)
    f.file_size = f.members_end + (int64_t)c.size();
}

void AsyncWriter::process(std::vector<Item>& batch) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (failed_) return;
  }
  std::vector<std::pair<ObjectFile*, Pending>> pending;  // per file, in first-touch order
  auto pending_for = [&](ObjectFile* f) -> Pending& {
    for (auto& p : pending)
      if (p.first == f) return p.second;
    pending.emplace_back(f, Pending());
    return pending.back().second;
  };
  for (auto& it : batch) {
    if (it.kind == Item::Kind::kLink) {
      ::unlink(it.path.c_str());  // a rerun into the same dump_path replaces old files
      if (::link(it.link_target.c_str(), it.path.c_str()) == 0) {
        recycle_output_buffer(std::move(it.text));
        continue;
      }
      it.kind = Item::Kind::kFile;  // e.g. a file system without hard links: write the bytes
    }
    if (it.kind == Item::Kind::kFile) {
      // Unlink first: an old file of that name may be a hard link shared with another file.
      ::unlink(it.path.c_str());
      int fd = ::open(it.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, kFileMode);
      if (fd < 0) {
        fail("cannot create " + it.path, errno);
        return;
      }
      bool ok = write_two_at(fd, nullptr, 0, it.text, 0, it.path);
      ::close(fd);
      if (!ok) return;
      recycle_output_buffer(std::move(it.text));
      continue;
    }
    ObjectFile* f;
    {
      std::lock_guard<std::mutex> lk(mu_);
      f = &files_[(size_t)it.file_id];
    }
    if (f->fd < 0) continue;
    Pending& p = pending_for(f);
    if (it.kind == Item::Kind::kClose || it.kind == Item::Kind::kReorder || it.kind == Item::Kind::kTail) {
      if (!write_members(*f, p)) return;
      if (it.kind == Item::Kind::kReorder) {
        if (!reorder(*f, it.order)) return;
        continue;
      }
      if (it.kind == Item::Kind::kTail) {
        if (!replace_tail(*f, std::move(it.text))) return;
        continue;
      }
      trim_runway(*f);
      ::close(f->fd);
      f->fd = -1;
      std::vector<Span>().swap(f->spans);
      std::vector<uint32_t>().swap(f->in_file);
      continue;
    }
    p.starts.push_back(p.text.size());
    if (f->members + p.starts.size() > 1) p.text += ',';
    p.text += '\n';
    p.text.append((size_t)f->member_depth, ' ');
    p.text += it.text;
  }
  for (auto& [f, p] : pending)
    if (f->fd >= 0 && !write_members(*f, p)) return;
}

}  // namespace msprobe
