#pragma once
// One writer at a time on a SQLite results store: two runs writing one file would each replace the
// other's rows as they go (a row's key names no run). The writer holds an exclusive flock(2) on the
// file for as long as its store is open; a second writer, in this process or another, is refused
// with a message naming the file. (flock and SQLite's own fcntl locks do not interact; the lock's
// descriptor must close only after SQLite has closed the file, since closing any descriptor of a
// file drops the process's fcntl locks on it.) A PostgreSQL store needs none: its work queue keeps
// writers apart.
#include <filesystem>

namespace headroom::store {

class writer_lock {
 public:
  explicit writer_lock(const std::filesystem::path& path);  // creates the file when missing
  ~writer_lock();
  writer_lock(const writer_lock&) = delete;
  writer_lock& operator=(const writer_lock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace headroom::store
