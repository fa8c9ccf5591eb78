#pragma once
// Copies a folder tree that untrusted code wrote (a candidate's build) to a host folder that trusted
// code will read: regular files and folders only; links, devices, FIFOs and sockets are skipped, no
// path is followed through a link, and a file that changes type while it is copied is skipped. The
// result lands in a fresh folder beside `to` that is renamed into place when the copy is complete.
#include <cstdint>
#include <string>

namespace headroom::sandbox {

struct copy_report {
  bool ok = false;
  std::string error;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::uint64_t skipped = 0;  // entries that are not regular files or folders
};

// `from`: a folder path (opened without following a link in its last component). `to`: the host
// folder, replaced when it exists. At most `max_bytes` are copied; beyond them the copy fails.
copy_report copy_tree(const std::string& from, const std::string& to, std::uint64_t max_bytes);

}  // namespace headroom::sandbox
