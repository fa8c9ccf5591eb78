#include "proc_file.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace headroom::sandbox {

bool write_proc_file(const char* path, const std::string& text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

}  // namespace headroom::sandbox
