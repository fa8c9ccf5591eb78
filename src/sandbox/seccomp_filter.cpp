#include "seccomp_filter.hpp"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>

#include <cstring>
#include <memory>

namespace headroom::sandbox {

std::string install_seccomp_filter() {
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> ctx(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!ctx) return "seccomp_init failed";
  // Another process's memory or descriptors (the judge's, when it shares the user), kernel
  // facilities that enlarge what the program can reach or observe, and ways out of the namespaces.
  static const char* const denied[] = {
      "ptrace",
      "process_vm_readv",
      "process_vm_writev",
      "process_madvise",
      "pidfd_getfd",
      "kcmp",
      "perf_event_open",
      "bpf",
      "userfaultfd",
      "io_uring_setup",
      "io_uring_enter",
      "io_uring_register",
      "keyctl",
      "add_key",
      "request_key",
      "mount",
      "umount2",
      "pivot_root",
      "chroot",
      "unshare",
      "setns",
      "open_by_handle_at",
      "name_to_handle_at",
      "kexec_load",
      "kexec_file_load",
      "init_module",
      "finit_module",
      "delete_module",
      "reboot",
      "swapon",
      "swapoff",
      "acct",
      "quotactl",
      "syslog",
      "iopl",
      "ioperm",
      "lookup_dcookie",
      "fsopen",
      "fsmount",
      "fspick",
      "open_tree",
      "move_mount",
      "mount_setattr",
      "fanotify_init",
      "vhangup",
      "settimeofday",
      "clock_settime",
      "adjtimex",
      "clock_adjtime",
  };
  for (const char* name : denied) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not a call on this architecture
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 0); rc != 0)
      return std::string("seccomp rule for ") + name + ": " + std::strerror(-rc);
  }
  // clone with any namespace flag; clone3 passes its flags in memory the filter cannot read.
  static const unsigned long namespace_flags[] = {CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,   CLONE_NEWNET,
                                                  CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP};
  for (unsigned long flag : namespace_flags)
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                  SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
        rc != 0)
      return std::string("seccomp rule for clone: ") + std::strerror(-rc);
  if (int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR)
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc != 0)
      return std::string("seccomp rule for clone3: ") + std::strerror(-rc);
  if (int rc = seccomp_load(ctx.get()); rc != 0) return std::string("seccomp_load: ") + std::strerror(-rc);
  return {};
}

}  // namespace headroom::sandbox
