// Demangling of kernel names that reach headroom mangled.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "headroom/classify/classifier.hpp"

namespace headroom::classify {
namespace {

TEST(demangle, turns_an_itanium_name_into_its_cxx_spelling) {
  EXPECT_EQ(demangle("_Z3addPfS_i"), "add(float*, float*, int)");
  EXPECT_EQ(demangle("_ZN2at6native18reduce_kernel_implEv"), "at::native::reduce_kernel_impl()");
}

TEST(demangle, accepts_the_extra_leading_underscore_some_tools_write) {
  EXPECT_EQ(demangle("__Z3addPfS_i"), "add(float*, float*, int)");
}

TEST(demangle, keeps_clone_and_linker_suffixes_visible) {
  EXPECT_EQ(demangle("_Z3addPfS_i.clone.0"), "add(float*, float*, int) [clone .clone.0]");
  EXPECT_EQ(demangle("_Z3addPfS_i$local"), "add(float*, float*, int) [$local]");
}

TEST(demangle, leaves_plain_names_alone) {
  EXPECT_EQ(demangle("volta_sgemm_128x32_nt"), "volta_sgemm_128x32_nt");
  EXPECT_EQ(demangle("void at::native::vectorized_elementwise_kernel<4>(int)"),
            "void at::native::vectorized_elementwise_kernel<4>(int)");
  EXPECT_EQ(demangle(""), "");
}

TEST(demangle, returns_a_name_that_does_not_demangle_unchanged) {
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle("_ZN3foo"), "_ZN3foo");
  EXPECT_EQ(demangle("_Zgarbage!"), "_Zgarbage!");
}

TEST(demangle, returns_the_real_cudnn_name_that_kineto_could_not_demangle_unchanged) {
  // The HTA traces hold _ZN19cutlass_cudnn_train6KernelI... names that no demangler accepts; they
  // must pass through untouched and still be classified by their mangled spelling.
  const std::filesystem::path path =
      std::filesystem::path(HEADROOM_FIXTURES_DIR) / "kernel-names/hta_kernel_names.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "fixtures absent";
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto start = text.find("\"_ZN19cutlass_cudnn_train");
  ASSERT_NE(start, std::string::npos);
  const std::string name = text.substr(start + 1, text.find('"', start + 1) - start - 1);
  EXPECT_EQ(demangle(name), name);
  const auto k = classifier::with_default_rules().classify(name);
  EXPECT_EQ(k.cat, category::convolution);
  EXPECT_EQ(k.prov, provenance::vendor_library);
}

TEST(classifier, matches_mangled_names_by_their_demangled_spelling) {
  classifier c;
  c.add_rules_text(R"([[rule]]
id = "aten-reduce"
prefix = "at::native::reduce"
category = "reduction"
provenance = "framework"
)",
                   "test.toml");
  EXPECT_EQ(c.classify("_ZN2at6native18reduce_kernel_implEv").rule, "aten-reduce");
}

}  // namespace
}  // namespace headroom::classify
