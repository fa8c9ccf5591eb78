#include "candidate_sandbox.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>
#include <simdjson.h>

#include "headroom/util/error.hpp"

namespace headroom::eval {

using record::environment;

namespace {

// What every sandbox shows already (mount_tree.cpp): a folder below one of these needs no bind.
bool shown_already(const std::string& path) {
  for (const char* root :
       {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys", "/proc", "/dev"}) {
    std::string r = root;
    if (path == r || path.rfind(r + "/", 0) == 0) return true;
  }
  return false;
}

// Runs a command and returns its stdout; `ok`: it exited 0.
std::string output_of(const std::string& command, bool* ok = nullptr) {
  std::string out;
  int status = -1;
  if (FILE* f = ::popen(command.c_str(), "r")) {
    std::array<char, 4096> buf;
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), f)) > 0;) out.append(buf.data(), n);
    status = ::pclose(f);
  }
  if (ok) *ok = status == 0;
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void add_path_list(std::vector<std::string>& to, const char* variable) {
  const char* v = std::getenv(variable);
  if (!v) return;
  std::stringstream ss(v);
  for (std::string part; std::getline(ss, part, ':');)
    if (!part.empty() && part.front() == '/') to.push_back(part);
}

// Environment variables a candidate's worker keeps from the parent's: where CUDA and libraries are,
// thread counts, the worker's own diagnostics. Nothing else of the judge's environment reaches it.
constexpr std::array kept_variables = {"CUDA_HOME",
                                       "CUDA_PATH",
                                       "CUDA_VISIBLE_DEVICES",
                                       "CUDA_DEVICE_ORDER",
                                       "LD_LIBRARY_PATH",
                                       "PYTHONPATH",
                                       "OMP_NUM_THREADS",
                                       "MKL_NUM_THREADS",
                                       "TORCH_CUDA_ARCH_LIST",
                                       "HEADROOM_WORKER_TRACE",
                                       "HEADROOM_EVAL_TRACE",
                                       "HEADROOM_EVAL_STAGED_COPIES",
                                       "HEADROOM_EVAL_HOLD"};

}  // namespace

std::filesystem::path build_folder(const run_state& run, const candidate_spec& c) {
  return run.options.cache / "ext" / c.hash;
}

std::filesystem::path candidate_file(const run_state& run, const candidate_spec& c) {
  std::filesystem::path file = run.options.cache / "src" / (c.hash + ".py");
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return file;
  std::filesystem::create_directories(file.parent_path());
  std::filesystem::path temporary = file;
  temporary += fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream f(temporary, std::ios::binary | std::ios::trunc);
    f << c.text;
    if (!f.flush()) throw input_error(fmt::format("cannot write {}", temporary.string()));
  }
  std::filesystem::rename(temporary, file);
  return file;
}

std::string candidate_import_path(const run_state& run, const candidate_spec& c) {
  return run.options.sandbox ? std::string(sandbox_candidate_path) : candidate_file(run, c).string();
}

std::string candidate_build_path(const run_state& run, const candidate_spec& c) {
  return run.options.sandbox ? std::string(sandbox_build_path) : build_folder(run, c).string();
}

std::vector<std::string> sandbox_roots(const std::string& python) {
  std::vector<std::string> paths;
  bool ran = false;
  std::string json = output_of(
      shell_quote(python) +
          " -c 'import json, sys; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix] + sys.path))'"
          " 2>/dev/null",
      &ran);
  simdjson::dom::parser parser;
  simdjson::dom::array list;
  if (ran && !parser.parse(json).get_array().get(list))
    for (auto e : list) {
      std::string_view s;
      if (!e.get_string().get(s) && !s.empty() && s.front() == '/') paths.emplace_back(s);
    }
  // The interpreter itself may sit apart from its prefix (a link into another folder).
  std::error_code ec;
  auto real = std::filesystem::canonical(python, ec);
  if (!ec) paths.push_back(real.parent_path().string());
  paths.push_back(std::filesystem::path(python).parent_path().string());
  // The folders of the libraries this process was loaded from: the worker was built with them
  // (a private prefix of Debian packages on a machine without them, for instance).
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::size_t at = line.find('/');
    if (at == std::string::npos || line.find(".so", at) == std::string::npos) continue;
    paths.push_back(std::filesystem::path(line.substr(at)).parent_path().string());
  }
  add_path_list(paths, "LD_LIBRARY_PATH");
  add_path_list(paths, "PYTHONPATH");
  add_path_list(paths, "CUDA_HOME");
  add_path_list(paths, "CUDA_PATH");
  // Existing folders not shown already, and none inside another of the list.
  std::vector<std::string> out;
  for (std::string& p : paths) {
    auto c = std::filesystem::weakly_canonical(p, ec);
    if (ec || !std::filesystem::is_directory(c, ec)) continue;
    std::string s = c.string();
    if (s != "/" && !shown_already(s)) out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  std::vector<std::string> roots;
  for (const std::string& p : out)
    if (roots.empty() || p.rfind(roots.back() + "/", 0) != 0) roots.push_back(p);
  return roots;
}

sandbox::policy candidate_policy(const run_state& run, const std::string& device, const candidate_spec& c, bool compile,
                                 const std::map<std::string, std::string>& env) {
  const eval_options& o = run.options;
  sandbox::policy p;
  for (const std::string& r : run.sandbox_roots) p.binds.push_back({r, r, false});
  for (const std::string& r : o.sandbox_binds) p.binds.push_back({r, r, false});
  p.binds.push_back({o.worker.string(), sandbox_worker_path, false});
  if (!o.poison_allocator.empty()) p.binds.push_back({o.poison_allocator.string(), sandbox_poison_path, false});
  if (!o.alloc_tracker.empty()) p.binds.push_back({o.alloc_tracker.string(), sandbox_alloc_tracker_path, false});
  if (!o.op_record.empty()) p.binds.push_back({o.op_record.string(), sandbox_op_record_path, false});
  p.binds.push_back({candidate_file(run, c).string(), sandbox_candidate_path, false});
  p.scratch.push_back({"/tmp", o.sandbox_scratch_bytes});
  p.scratch.push_back({"/dev/shm", o.sandbox_scratch_bytes});
  std::filesystem::path built = build_folder(run, c);
  std::error_code ec;
  if (compile) {
    p.scratch.push_back({sandbox_build_path, o.sandbox_scratch_bytes});
    p.copy_out_inside = sandbox_build_path;
    p.copy_out_host = built.string();
  } else if (std::filesystem::is_directory(built, ec)) {
    p.binds.push_back({built.string(), sandbox_build_path, false});
  } else {
    p.scratch.push_back({sandbox_build_path, o.sandbox_scratch_bytes});
  }
  if (device != "cpu") {
    // The GPU's device nodes (every NVIDIA node; docs/eval.md says what that leaves open).
    for (const auto& e : std::filesystem::directory_iterator("/dev", ec)) {
      std::string name = e.path().filename().string();
      if (name.rfind("nvidia", 0) == 0 && e.is_character_file(ec)) p.devices.push_back(e.path().string());
    }
  }
  std::map<std::string, std::string> vars = {
      {"PATH", std::filesystem::path(o.python).parent_path().string() +
                   ":/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
      {"HOME", "/tmp"},
      {"TMPDIR", "/tmp"},
      {"USER", "sandbox"},
      {"LOGNAME", "sandbox"},
      {"LANG", "C.UTF-8"},
      {"PYTHONDONTWRITEBYTECODE", "1"},
      {"PYTHONUNBUFFERED", "1"}};
  for (const char* k : kept_variables)
    if (const char* v = std::getenv(k)) vars[k] = v;
  for (const auto& [k, v] : run.worker_env) vars[k] = v;
  for (const auto& [k, v] : env) vars[k] = v;
  for (const auto& [k, v] : vars) p.environment.push_back(k + "=" + v);
  p.workdir = "/tmp";
  // An evaluation worker writes its answers' tensors into shared regions, files to the kernel: a
  // file-size limit below the largest answer (a 4 GiB output, whole in the first timed call's
  // reply) ends the worker by SIGXFSZ. The memory budget bounds everything held for a problem, so
  // it bounds every region too; the writable folders keep their own caps (scratch above).
  if (!compile) p.limits.file_bytes = std::max(p.limits.file_bytes, run.memory_budget);
  return p;
}

namespace {

std::filesystem::path stamp_of(const run_state& run, const candidate_spec& c) {
  return run.options.cache / "ext" / (c.hash + ".compiled");
}

// What a build depends on besides the candidate's text (its folder's name): torch and the GPU
// architectures it was built for.
std::string build_key(const run_state& run, const std::string& torch) {
  auto arch = run.worker_env.find("TORCH_CUDA_ARCH_LIST");
  return fmt::format("torch {}; architectures {}; python {}", torch, arch == run.worker_env.end() ? "" : arch->second,
                     run.options.python);
}

}  // namespace

bool compiled_already(const run_state& run, const candidate_spec& c) {
  std::error_code ec;
  if (!std::filesystem::is_directory(build_folder(run, c), ec)) return false;
  std::ifstream f(stamp_of(run, c));
  std::string torch;
  std::getline(f, torch);
  std::string key;
  std::getline(f, key);
  return !torch.empty() && key == build_key(run, torch);
}

void mark_compiled(const run_state& run, const candidate_spec& c, const environment& env) {
  std::error_code ec;
  if (env.torch.empty() || !std::filesystem::is_directory(build_folder(run, c), ec)) return;
  std::ofstream(stamp_of(run, c), std::ios::trunc) << env.torch << "\n" << build_key(run, env.torch) << "\n";
}

std::optional<sandbox::policy> candidate_isolation(const run_state& run, const std::string& device,
                                                   const candidate_spec& c) {
  if (!run.options.sandbox) return std::nullopt;
  return candidate_policy(run, device, c, false, {});
}

void require_sandbox(const run_state& run) {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [&] {
    bool ok = false;
    std::string out = output_of(shell_quote(run.options.sandbox_exe.string()) + " --check 2>&1", &ok);
    if (!ok || out.find("this machine can sandbox candidates") == std::string::npos)
      problem = out.empty() ? fmt::format("{} --check did not run", run.options.sandbox_exe.string()) : out;
  });
  if (!problem.empty())
    throw input_error(
        fmt::format("this machine cannot isolate candidate code, so no candidate is run:\n{}"
                    "Candidates are untrusted code; evaluate them here only if you trust them, with "
                    "--no-sandbox.",
                    problem));
}

}  // namespace headroom::eval
