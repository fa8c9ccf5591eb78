#pragma once
// The worker's hold on the C++ operator record (op_record.h): libheadroom_op_record.so, loaded once
// PyTorch is imported and trusted only after it has seen an operator of this very torch.
#include <functional>
#include <string>
#include <vector>

namespace headroom::worker {

struct op_record_result {
  std::vector<std::string> dispatched;  // every operator the call dispatched, on any thread
  std::vector<std::string> outer;  // the outermost kernels (what a Python dispatch mode sees)
  // The same, each with its operands' sizes ("div(2097152,512)": op_record.h).
  std::vector<std::string> dispatched_sized;
  std::vector<std::string> outer_sized;
  std::vector<std::string> lost;  // what the record's own checks found switched off
};

class op_record {
 public:
  // Loads the library at `path` and records `probe` (which runs operator `probe_op` through
  // PyTorch), so a library that does not see this torch's dispatcher is never used. Returns why
  // the record is unavailable, or an empty string.
  std::string load(const std::string& path, const std::function<bool()>& probe, const std::string& probe_op);
  bool available() const { return names_ != nullptr; }
  // Around a call: everything PyTorch's dispatcher runs in between, on every thread.
  bool arm() const;
  op_record_result disarm() const;

 private:
  int (*arm_)() = nullptr;
  int (*disarm_)() = nullptr;
  const char* (*names_)(int) = nullptr;
};

}  // namespace headroom::worker
