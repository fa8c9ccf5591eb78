#pragma once
// Kernel classification: ordered rules (data/rules/*.toml, then the user's --rules files, which
// take precedence) map a kernel name to a category and a provenance. Provenance decides
// addressability (docs/method.md): vendor libraries and communication are not addressable;
// framework, compiler-generated and custom kernels are.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::classify {

enum class category : std::uint8_t {
  gemm,
  attention,
  convolution,
  normalization,
  softmax,
  elementwise,
  reduction,
  embedding,
  sort_scan,
  optimizer,
  communication,
  memory,
  other,
};
inline constexpr int category_count = 13;

enum class provenance : std::uint8_t {
  vendor_library,  // cuBLAS/cuBLASLt, CUTLASS GEMM, cuDNN, FlashAttention, SDPA backends, ...
  framework,  // ATen, CUB through ATen, ...
  compiler_generated,  // Triton / Inductor, XLA, nvFuser
  custom,  // the user's own kernels, and anything no rule names
  communication,  // NCCL, RCCL and other collectives
  runtime,  // copies and memsets (not kernels)
};
inline constexpr int provenance_count = 6;

bool is_addressable(provenance p);

std::string_view to_string(category c);
std::string_view to_string(provenance p);
std::optional<category> parse_category(std::string_view s);
std::optional<provenance> parse_provenance(std::string_view s);

struct classification {
  category cat = category::other;
  provenance prov = provenance::custom;
  std::string_view rule;  // id of the rule that matched ("" when none did)
  std::string_view library;  // "cuBLAS", "ATen", ... ("" when the rule does not say)
  bool addressable() const { return is_addressable(prov); }
};

// One rule as loaded, for listings (`headroom classify --list-rules`). Views live as long as the
// classifier that returned them.
struct rule_summary {
  std::string_view id;
  std::string_view origin;  // file the rule came from ("10-communication.toml", a user's path)
  category cat = category::other;
  provenance prov = provenance::custom;
  std::string_view library;
  std::string_view note;
  std::string matchers;  // the rule's matchers, as a short human-readable text
};

// Demangles an Itanium-mangled name ("_Z...", or "__Z..." as some tools write it). A clone or
// linker suffix (".clone.0", ".isra.1", "$local") that stops the whole name from demangling is cut,
// the rest demangled and the suffix kept as " [suffix]". Returns the input unchanged when it is
// not mangled or does not demangle.
std::string demangle(std::string_view name);

class classifier {
 public:
  // The rules compiled into the binary (data/rules/*.toml).
  static classifier with_default_rules();
  // The defaults plus the user's rule files (--rules), the first file given tried first.
  static classifier with_user_rules(const std::vector<std::filesystem::path>& files);
  // No rules at all: everything is other/custom. For tests.
  classifier();
  ~classifier();
  classifier(classifier&&) noexcept;
  classifier& operator=(classifier&&) noexcept;

  // Rules from a TOML file (the format of data/rules/*.toml); they are tried before every rule
  // loaded earlier, so a user's file overrides the defaults. Throws input_error naming the file,
  // the rule and the problem.
  void add_rules_file(const std::filesystem::path& path);
  void add_rules_text(std::string_view toml, std::string_view origin);

  // Classifies a kernel name (demangled or mangled). Copies and memsets are classified by the
  // caller as memory/runtime without asking. The result's string views live as long as *this.
  classification classify(std::string_view kernel_name) const;

  std::size_t rule_count() const;
  // Every rule in the order it is tried.
  std::vector<rule_summary> rules() const;

 private:
  struct impl;
  impl* impl_;
};

}  // namespace headroom::classify
