#include "confine.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "proc_file.hpp"
#include "seccomp_filter.hpp"

namespace headroom::sandbox {
namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "headroom-sandbox: %s: %s\n", what.c_str(), std::strerror(errno));
  std::_Exit(125);
}

void set_limit(int resource, std::uint64_t value, const char* name) {
  rlimit r{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  if (::setrlimit(resource, &r) != 0) die(std::string("setrlimit ") + name);
}

void drop_bounding_set() {
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) die("drop the capability bounding set");
}

void clear_capabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &header, data) != 0) die("clear capabilities");
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

}  // namespace

void confine_and_exec(const policy& p, const identity& who, const std::vector<std::string>& program) {
  set_limit(RLIMIT_NPROC, p.limits.processes, "RLIMIT_NPROC");
  set_limit(RLIMIT_FSIZE, p.limits.file_bytes, "RLIMIT_FSIZE");
  set_limit(RLIMIT_NOFILE, p.limits.open_files, "RLIMIT_NOFILE");
  set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE");
  if (who.host_root) {
    // The bounding set needs CAP_SETPCAP, gone once the uid is not 0; changing uid clears the rest.
    drop_bounding_set();
    if (::setgroups(0, nullptr) != 0) die("setgroups");
    if (::setresgid(who.gid, who.gid, who.gid) != 0) die("setresgid");
    if (::setresuid(who.uid, who.uid, who.uid) != 0) die("setresuid");
  } else {
    // Inside the sandbox's user namespace this process is uid 0 with every capability of that
    // namespace. A nested one makes it uid 1000 (the same host user), whose capabilities reach
    // nothing outside the nested namespace, and then those are dropped too.
    // /proc/self of a process that is not dumpable (init made itself so, and this is its fork)
    // belongs to root, which this namespace cannot write as.
    ::prctl(PR_SET_DUMPABLE, 1);
    if (::unshare(CLONE_NEWUSER) != 0) die("nested user namespace");
    if (!write_proc_file("/proc/self/setgroups", "deny") || !write_proc_file("/proc/self/uid_map", "1000 0 1") ||
        !write_proc_file("/proc/self/gid_map", "1000 0 1"))
      die("nested user namespace's id maps");
    drop_bounding_set();
    clear_capabilities();
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
  if (std::string e = install_seccomp_filter(); !e.empty()) {
    errno = 0;
    die(e);
  }
  std::vector<char*> argv, envp;
  for (const std::string& a : program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : p.environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ::execve(argv[0], argv.data(), envp.data());
  die("exec " + program.front());
}

}  // namespace headroom::sandbox
