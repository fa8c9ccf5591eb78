// Rule files: the format's errors, and how a user's rules take precedence.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "headroom/classify/classifier.hpp"
#include "headroom/util/error.hpp"

namespace headroom::classify {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The message of the input_error that loading `toml` throws ("" when it loads).
std::string load_error(const std::string& toml) {
  classifier c;
  try {
    c.add_rules_text(toml, "bad.toml");
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

constexpr const char* good_rule = R"([[rule]]
id = "ok"
prefix = "k"
category = "gemm"
provenance = "vendor_library"
)";

TEST(rule_file, reports_an_unknown_category_with_file_rule_and_value) {
  EXPECT_THAT(
      load_error(std::string(good_rule) + R"([[rule]]
id = "second"
contains = "x"
category = "matmul"
provenance = "framework"
)"),
      AllOf(HasSubstr("bad.toml"), HasSubstr("\"second\""), HasSubstr("#2"), HasSubstr("unknown category \"matmul\"")));
}

TEST(rule_file, reports_an_unknown_provenance) {
  EXPECT_THAT(load_error(R"([[rule]]
id = "p"
contains = "x"
category = "gemm"
provenance = "cublas"
)"),
              AllOf(HasSubstr("\"p\""), HasSubstr("unknown provenance \"cublas\"")));
}

TEST(rule_file, reports_a_bad_regex) {
  EXPECT_THAT(load_error(R"([[rule]]
id = "r"
regex = "gemm(["
category = "gemm"
provenance = "vendor_library"
)"),
              AllOf(HasSubstr("bad.toml"), HasSubstr("\"r\""), HasSubstr("bad `regex`")));
}

TEST(rule_file, reports_a_missing_id_by_rule_number_and_line) {
  EXPECT_THAT(load_error(std::string(good_rule) + R"(
[[rule]]
contains = "x"
category = "gemm"
provenance = "vendor_library"
)"),
              AllOf(HasSubstr("bad.toml"), HasSubstr("rule #2"), HasSubstr("line 7"), HasSubstr("no `id`")));
}

TEST(rule_file, reports_a_rule_without_matcher) {
  EXPECT_THAT(load_error(R"([[rule]]
id = "nothing"
not_contains = "x"
category = "gemm"
provenance = "vendor_library"
)"),
              AllOf(HasSubstr("\"nothing\""), HasSubstr("no matcher")));
}

TEST(rule_file, reports_toml_syntax_errors_with_file_and_line) {
  EXPECT_THAT(load_error("[[rule]]\nid = \"a\"\nprefix = [\"x\"\n"),
              AllOf(HasSubstr("bad.toml:"), HasSubstr("not valid TOML")));
}

TEST(rule_file, reports_misspelled_keys_instead_of_ignoring_them) {
  EXPECT_THAT(load_error(R"([[rule]]
id = "typo"
contain = "x"
prefix = "y"
category = "gemm"
provenance = "vendor_library"
)"),
              AllOf(HasSubstr("\"typo\""), HasSubstr("unknown key `contain`")));
  EXPECT_THAT(load_error("[rules]\nid = \"x\"\n"), HasSubstr("unknown top-level key `rules`"));
}

TEST(rule_file, reports_empty_matchers_bad_on_and_repeated_ids) {
  EXPECT_THAT(load_error(R"([[rule]]
id = "e"
contains = ""
category = "gemm"
provenance = "vendor_library"
)"),
              HasSubstr("empty string"));
  EXPECT_THAT(load_error(R"([[rule]]
id = "o"
prefix = "x"
on = "both"
category = "gemm"
provenance = "vendor_library"
)"),
              HasSubstr("on = \"both\""));
  EXPECT_THAT(load_error(std::string(good_rule) + good_rule), HasSubstr("repeats an id"));
}

TEST(rule_file, reports_an_unreadable_file_by_path) {
  classifier c;
  try {
    c.add_rules_file("/nonexistent/rules.toml");
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/rules.toml"));
  }
}

TEST(rule_file, user_rules_override_the_defaults) {
  auto c = classifier::with_default_rules();
  const std::string name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
  ASSERT_EQ(c.classify(name).prov, provenance::framework);
  const auto path = std::filesystem::temp_directory_path() / "headroom_classify_user_rules.toml";
  {
    std::ofstream out(path);
    out << R"(# our fork of ATen ships tuned kernels we do not want to count as addressable
[[rule]]
id = "our-aten-add"
contains = "CUDAFunctor_add"
category = "elementwise"
provenance = "vendor_library"
library = "our ATen"
)";
  }
  const std::size_t before = c.rule_count();
  c.add_rules_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(c.rule_count(), before + 1);
  const auto k = c.classify(name);
  EXPECT_EQ(k.rule, "our-aten-add");
  EXPECT_EQ(k.library, "our ATen");
  EXPECT_FALSE(k.addressable());
  EXPECT_EQ(c.rules().front().id, "our-aten-add");
  // Names the user's rule does not claim still reach the defaults.
  EXPECT_EQ(c.classify("volta_sgemm_128x32_nt").rule, "cublas-arch-gemm");
}

TEST(rule_file, within_a_file_the_first_matching_rule_wins) {
  classifier c;
  c.add_rules_text(R"([[rule]]
id = "specific"
prefix = "ncclDevKernel_"
category = "communication"
provenance = "communication"

[[rule]]
id = "generic"
contains = ["Reduce", "Sum"]
not_contains = "AllGather"
category = "reduction"
provenance = "framework"
)",
                   "order.toml");
  EXPECT_EQ(c.classify("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL").rule, "specific");
  EXPECT_EQ(c.classify("my_Reduce_kernel").rule, "generic");
  EXPECT_EQ(c.classify("my_AllGather_Sum").rule, "");
}

TEST(rule_file, matchers_of_different_kinds_must_all_match) {
  classifier c;
  c.add_rules_text(R"([[rule]]
id = "both"
prefix = "at::native::"
contains = ["layer_norm", "LayerNorm"]
category = "normalization"
provenance = "framework"
)",
                   "and.toml");
  // prefix sees past the return type CUPTI prints ("void ").
  EXPECT_EQ(c.classify("void at::native::vectorized_layer_norm_kernel<float, float>(int)").rule, "both");
  EXPECT_EQ(c.classify("void at::native::vectorized_elementwise_kernel<4>(int)").rule, "");
  EXPECT_EQ(c.classify("apex::layer_norm_kernel").rule, "");
}

TEST(rule_file, on_selects_the_mangled_or_demangled_spelling) {
  classifier c;
  c.add_rules_text(R"([[rule]]
id = "mangled-only"
prefix = "_ZN2at6native"
on = "mangled"
category = "other"
provenance = "framework"

[[rule]]
id = "demangled-only"
prefix = "add("
on = "demangled"
category = "elementwise"
provenance = "custom"
)",
                   "on.toml");
  EXPECT_EQ(c.classify("_ZN2at6native18reduce_kernel_implEv").rule, "mangled-only");
  EXPECT_EQ(c.classify("at::native::reduce_kernel_impl()").rule, "");
  EXPECT_EQ(c.classify("_Z3addPfS_i").rule, "demangled-only");
  EXPECT_EQ(c.classify("add(float*)").rule, "demangled-only");
}

}  // namespace
}  // namespace headroom::classify
