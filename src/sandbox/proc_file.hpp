#pragma once
// Writing one of the kernel's files under /proc (uid_map, setgroups, oom_score_adj): one write(2)
// of the whole text, as those files require. Internal to src/sandbox.
#include <string>

namespace headroom::sandbox {

// False when the file cannot be opened or the write is refused or short (errno says why).
bool write_proc_file(const char* path, const std::string& text);

}  // namespace headroom::sandbox
