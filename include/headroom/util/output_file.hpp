#pragma once
// Every file headroom writes for the user (`-o`, a store, an export) goes through output_file, so
// that an output is either the whole new file or untouched:
// - the bytes go to an unnamed file in the target's folder (O_TMPFILE), which a crash or a kill
//   leaves nowhere; on a filesystem without O_TMPFILE, to a hidden named file that is removed on
//   failure and on SIGINT, SIGTERM and SIGHUP;
// - commit() checks every write, syncs the file to disk, links it in and renames it over the
//   target, then syncs the folder: a full disk or any other write error is an input_error naming
//   the target, and the old file stays;
// - a target that is a symbolic link, a folder, or one of the command's inputs is refused before
//   anything is written;
// - an empty target or "-" is standard output, and an existing FIFO or character device (a pipe,
//   /dev/null) is written in place; commit() then checks that every byte was written.
#include <filesystem>
#include <memory>
#include <ostream>
#include <span>
#include <string_view>

namespace headroom::util {

class output_file {
 public:
  // Throws input_error when the target cannot be written (see above). `inputs` are the files the
  // command reads; writing over one of them is refused.
  explicit output_file(const std::filesystem::path& target, std::span<const std::filesystem::path> inputs = {});
  ~output_file();  // without commit(): the target is left as it was
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  std::ostream& stream();
  // Makes the output the target's content. Throws input_error on any write error.
  void commit();

  // How the output is named in messages: the path, or "standard output".
  std::string name() const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

// Flushes standard output and throws input_error when a write to it failed (a full disk, a closed
// pipe): a command's output is checked even when no -o was given.
void finish_standard_output();

}  // namespace headroom::util
