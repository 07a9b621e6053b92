// Background writer: see async_writer.h.
#include "msprobe/dump/async_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "msprobe/base/error.h"
#include "msprobe/format/buffer_pool.h"

namespace msprobe {

namespace {
constexpr mode_t kFileMode = 0640;
// The writer wakes on its own this often; producers only signal it when this much is queued,
// so recording a small entry costs no system call.
constexpr auto kWritePeriod = std::chrono::milliseconds(100);
constexpr size_t kWakeBytes = 4u << 20;
}

AsyncWriter::AsyncWriter(size_t memory_limit_bytes)
    : limit_(memory_limit_bytes), thread_([this] { run(); }) {
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

int AsyncWriter::open_object_file(const std::string& path, const std::string& header,
                                  const std::string& tail, int member_depth) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, kFileMode);
  if (fd < 0) {
    int err = errno;
    throw FileError("cannot create " + path + ": " + std::strerror(err));
  }
  ::fchmod(fd, kFileMode);
  ObjectFile f;
  f.path = path;
  f.tail = tail;
  f.fd = fd;
  f.member_depth = member_depth;
  f.members_end = (int64_t)header.size();
  if (!write_all_at(fd, header + "}" + tail, 0, path)) {
    ::close(fd);
    throw FileError("cannot write " + path + ": " + error());
  }
  std::lock_guard<std::mutex> lk(mu_);
  files_.push_back(std::move(f));
  return (int)files_.size() - 1;
}

void AsyncWriter::enqueue(Item item) {
  std::unique_lock<std::mutex> lk(mu_);
  if (failed_) return;
  const size_t n = item.text.size();
  cv_space_.wait(lk, [&] { return failed_ || queued_bytes_ == 0 || queued_bytes_ + n <= limit_; });
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

void AsyncWriter::write_file(std::string path, std::string contents) {
  enqueue(Item{Item::Kind::kFile, -1, std::move(path), std::move(contents), {}});
}

void AsyncWriter::link_file(std::string existing, std::string path, std::string contents) {
  enqueue(Item{Item::Kind::kLink, -1, std::move(path), std::move(contents), std::move(existing)});
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
  error_ = what + ": " + std::strerror(err);
  cv_space_.notify_all();
}

bool AsyncWriter::write_all_at(int fd, const std::string& data, int64_t offset,
                               const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = ::pwrite(fd, data.data() + done, data.size() - done, (off_t)(offset + (int64_t)done));
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
        return stop_ || flush_requests_ > 0 || queued_bytes_ >= kWakeBytes;
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

// Members of one batch are joined per file and written with a single pwrite that also rewrites
// the closing text, so the file is a complete JSON document after every write.
bool AsyncWriter::write_members(ObjectFile& f, std::string& members) {
  if (members.empty()) return true;
  const size_t member_len = members.size();
  members += '\n';
  members.append((size_t)f.member_depth - 1, ' ');
  members += '}';
  members += f.tail;
  if (!write_all_at(f.fd, members, f.members_end, f.path)) {
    restore_closing(f);
    return false;
  }
  f.members_end += (int64_t)member_len;
  f.empty = false;
  members.clear();
  return true;
}

// After a failed write (disk full, file too large): put the closing text back right after the
// last complete member and cut what follows, so the records already written stay parseable.
// This needs no new space: it rewrites bytes inside the file and truncates.
void AsyncWriter::restore_closing(ObjectFile& f) {
  std::string closing;
  if (f.empty) {
    closing = "}";
  } else {
    closing = "\n";
    closing.append((size_t)f.member_depth - 1, ' ');
    closing += '}';
  }
  closing += f.tail;
  ssize_t w = ::pwrite(f.fd, closing.data(), closing.size(), (off_t)f.members_end);
  if (w == (ssize_t)closing.size()) (void)::ftruncate(f.fd, (off_t)(f.members_end + (int64_t)closing.size()));
}

void AsyncWriter::process(std::vector<Item>& batch) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (failed_) return;
  }
  std::vector<std::pair<ObjectFile*, std::string>> pending;  // per file, in first-touch order
  auto pending_for = [&](ObjectFile* f) -> std::string& {
    for (auto& p : pending)
      if (p.first == f) return p.second;
    pending.emplace_back(f, std::string());
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
      if (fd < 0) { fail("cannot create " + it.path, errno); return; }
      bool ok = write_all_at(fd, it.text, 0, it.path);
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
    std::string& members = pending_for(f);
    if (it.kind == Item::Kind::kClose) {
      if (!write_members(*f, members)) return;
      ::close(f->fd);
      f->fd = -1;
      continue;
    }
    if (!f->empty || !members.empty()) members += ',';
    members += '\n';
    members.append((size_t)f->member_depth, ' ');
    members += it.text;
  }
  for (auto& [f, members] : pending)
    if (f->fd >= 0 && !write_members(*f, members)) return;
}

}  // namespace msprobe
