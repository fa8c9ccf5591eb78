#include "mount_tree.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace headroom::sandbox {
namespace {

std::string failure(const std::string& what) { return what + ": " + std::strerror(errno); }

// mkdir -p below `root`, for a path inside the sandbox.
bool make_dirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  return !ec || std::filesystem::is_directory(path);
}

bool make_file(const std::string& path) {
  if (!make_dirs(std::filesystem::path(path).parent_path().string())) return false;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno == EEXIST;
  ::close(fd);
  return true;
}

// A bind remounted read-only keeps the flags the kernel locked on the source (nosuid, nodev,
// noexec: a user namespace may not clear them) and adds nosuid.
unsigned long locked_flags(const std::string& path) {
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) return 0;
  unsigned long f = 0;
  if (s.f_flag & ST_NODEV) f |= MS_NODEV;
  if (s.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
  if (s.f_flag & ST_NOATIME) f |= MS_NOATIME;
  if (s.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
  if (s.f_flag & ST_RELATIME) f |= MS_RELATIME;
  return f;
}

std::string bind(const std::string& host, const std::string& target, bool writable, bool device) {
  struct stat st {};
  if (::stat(host.c_str(), &st) != 0) return failure("bind " + host);
  bool dir = S_ISDIR(st.st_mode);
  if (dir ? !make_dirs(target) : !make_file(target)) return failure("mount point " + target);
  // Folders with their submounts: a user namespace may not bind a folder without the mounts that
  // cover parts of it. Submounts keep their own flags; their files are owned by the host's root.
  unsigned long rec = dir ? MS_REC : 0;
  if (::mount(host.c_str(), target.c_str(), nullptr, MS_BIND | rec, nullptr) != 0) return failure("bind " + host);
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | locked_flags(target);
  if (!writable) flags |= MS_RDONLY;
  if (!device) flags |= MS_NODEV;
  if (::mount(nullptr, target.c_str(), nullptr, flags, nullptr) != 0) return failure("remount " + target);
  return {};
}

std::string scratch(const std::string& target, std::uint64_t bytes) {
  if (!make_dirs(target)) return failure("mount point " + target);
  std::string options = "mode=1777,size=" + std::to_string(bytes);
  if (::mount("tmpfs", target.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
    return failure("tmpfs " + target);
  return {};
}

// Merged-/usr systems have /bin, /lib, ... as links into /usr: the same links, not binds.
std::string system_dir(const std::string& root, const char* name) {
  std::string host = std::string("/") + name;
  struct stat st {};
  if (::lstat(host.c_str(), &st) != 0) return {};  // absent here
  if (S_ISLNK(st.st_mode)) {
    char to[4096];
    ssize_t n = ::readlink(host.c_str(), to, sizeof to - 1);
    if (n < 0) return failure("readlink " + host);
    to[n] = 0;
    if (::symlink(to, (root + host).c_str()) != 0) return failure("symlink " + host);
    return {};
  }
  if (!S_ISDIR(st.st_mode)) return {};
  return bind(host, root + host, false, false);
}

}  // namespace

std::string build_root(const policy& p, const std::string& staging) {
  // Nothing mounted from here on propagates back to the host.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return failure("make / private");
  if (::mount("tmpfs", staging.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") != 0)
    return failure("tmpfs root");
  const std::string& r = staging;
  for (const char* d : {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"})
    if (std::string e = d == std::string("usr") ? bind("/usr", r + "/usr", false, false) : system_dir(r, d); !e.empty())
      return e;
  for (const char* d : {"/etc"})
    if (std::string e = bind(d, r + d, false, false); !e.empty()) return e;

  // /dev: a tmpfs with the null devices, the policy's nodes, a private /dev/shm.
  const std::string dev = r + "/dev";
  if (!make_dirs(dev) || ::mount("tmpfs", dev.c_str(), "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=1m") != 0)
    return failure("tmpfs /dev");
  for (const char* node : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"})
    if (std::string e = bind(node, r + node, true, true); !e.empty()) return e;
  for (const std::string& node : p.devices)
    if (std::string e = bind(node, r + node, true, true); !e.empty()) return e;
  for (auto [link, to] : {std::pair{"/dev/fd", "/proc/self/fd"}, std::pair{"/dev/stdin", "/proc/self/fd/0"},
                          std::pair{"/dev/stdout", "/proc/self/fd/1"}, std::pair{"/dev/stderr", "/proc/self/fd/2"}})
    if (::symlink(to, (r + link).c_str()) != 0) return failure(std::string("symlink ") + link);

  bool shm_given = false;
  for (const scratch_mount& s : p.scratch) {
    if (std::string e = scratch(r + s.inside, s.bytes); !e.empty()) return e;
    shm_given = shm_given || s.inside == "/dev/shm";
  }
  if (!shm_given)
    if (std::string e = scratch(r + "/dev/shm", 64ull << 20); !e.empty()) return e;
  // The policy's binds after the scratch folders: a host folder below /tmp (a private prefix of
  // libraries, say) is shown on top of the sandbox's own /tmp, not hidden by it.
  for (const bind_mount& b : p.binds)
    if (std::string e = bind(b.host, r + (b.inside.empty() ? b.host : b.inside), b.writable, false); !e.empty())
      return e;

  // /sys read-only: CUDA and NVML read the PCI tree there.
  if (std::string e = bind("/sys", r + "/sys", false, false); !e.empty()) return e;
  // A /proc of the new pid namespace: the sandbox sees its own processes only.
  if (!make_dirs(r + "/proc") ||
      ::mount("proc", (r + "/proc").c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    return failure("mount /proc");

  // pivot_root(".", "."): the old root stacks under the new one and is detached at once.
  if (::chdir(r.c_str()) != 0) return failure("chdir to the new root");
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return failure("pivot_root");
  if (::umount2(".", MNT_DETACH) != 0) return failure("detach the old root");
  if (::chdir("/") != 0) return failure("chdir /");
  // The root itself read-only: nothing at the top can be replaced (a build folder by a link).
  if (::mount(nullptr, "/", nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
    return failure("remount / read-only");
  if (::chdir(p.workdir.c_str()) != 0) return failure("chdir " + p.workdir);
  return {};
}

}  // namespace headroom::sandbox
