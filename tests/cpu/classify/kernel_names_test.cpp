// The default rules against hand-labelled real kernel names (tests/data/kernel_names_expected.tsv).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "headroom/classify/classifier.hpp"

namespace headroom::classify {
namespace {

struct labelled_name {
  std::string name;
  std::string category;
  std::string provenance;
};

std::vector<labelled_name> read_expected() {
  std::ifstream in(std::string(HEADROOM_TEST_DATA_DIR) + "/kernel_names_expected.tsv");
  std::vector<labelled_name> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto a = line.find('\t');
    const auto b = line.find('\t', a + 1);
    rows.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return rows;
}

TEST(default_rules, classify_every_hand_labelled_name_as_labelled) {
  const auto rows = read_expected();
  ASSERT_GE(rows.size(), 80u) << "kernel_names_expected.tsv is missing or short";
  const auto c = classifier::with_default_rules();
  for (const auto& row : rows) {
    const auto k = c.classify(row.name);
    EXPECT_EQ(to_string(k.cat), row.category) << row.name << "\n  (rule " << k.rule << ")";
    EXPECT_EQ(to_string(k.prov), row.provenance) << row.name << "\n  (rule " << k.rule << ")";
  }
}

TEST(default_rules, cover_every_category_and_provenance_a_kernel_can_have) {
  // The table is meant to exercise every family; a label never used means a family went untested.
  const auto rows = read_expected();
  for (int i = 0; i < category_count; ++i) {
    const auto name = to_string(static_cast<category>(i));
    EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return r.category == name; })) << name;
  }
  for (auto p : {provenance::vendor_library, provenance::framework, provenance::compiler_generated, provenance::custom,
                 provenance::communication}) {
    EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return r.provenance == to_string(p); }))
        << to_string(p);
  }
}

TEST(default_rules, load_from_every_embedded_file_in_name_order) {
  const auto c = classifier::with_default_rules();
  const auto rules = c.rules();
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(rules.front().origin, "10-communication.toml");
  for (std::size_t i = 1; i < rules.size(); ++i) {
    EXPECT_LE(rules[i - 1].origin, rules[i].origin) << rules[i].id;
  }
}

TEST(classifier, leaves_unknown_names_to_other_custom_which_is_addressable) {
  const auto c = classifier::with_default_rules();
  const auto k = c.classify("my_fused_moe_kernel");
  EXPECT_EQ(k.cat, category::other);
  EXPECT_EQ(k.prov, provenance::custom);
  EXPECT_TRUE(k.rule.empty());
  EXPECT_TRUE(k.addressable());
}

TEST(classifier, matches_a_regex_at_the_end_of_a_20000_character_name) {
  // Templated CUTLASS/ATen names reach thousands of characters; a backtracking regex engine
  // recurses per character and overflows the stack on them. The name below also passes the
  // literal pre-checks of regex rules.
  auto c = classifier::with_default_rules();
  c.add_rules_text(R"([[rule]]
id = "greedy"
contains = "multi_tensor_apply_kernel"
regex = "^(.|\n)*ZZZ$"
category = "optimizer"
provenance = "framework"
)",
                   "greedy.toml");
  std::string name = "void multi_tensor_apply_kernel<";
  while (name.size() < 20000) name += "at::native::BinaryFunctor<float, float, float, SGDFunctor<float> >, ";
  name += "ZZZ";
  const auto k = c.classify(name);
  EXPECT_EQ(k.rule, "greedy");

  std::string mangled = "_ZN2at6native";
  while (mangled.size() < 20000) mangled += "N4cute5tupleIJNS_1CILi128EEE";
  EXPECT_NO_THROW(c.classify(mangled));
}

TEST(classifier, classifies_ten_thousand_distinct_names_in_well_under_a_second) {
  const auto rows = read_expected();
  ASSERT_FALSE(rows.empty());
  const auto c = classifier::with_default_rules();
  std::vector<std::string> names;
  for (int i = 0; names.size() < 10000; ++i) {
    names.push_back(rows[static_cast<std::size_t>(i) % rows.size()].name + std::to_string(i));
  }
  const auto start = std::chrono::steady_clock::now();
  std::size_t vendor = 0;
  for (const auto& n : names) vendor += c.classify(n).prov == provenance::vendor_library;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("classified %zu names in %.3f s (%.1f us/name)\n", names.size(), seconds, 1e6 * seconds / names.size());
  EXPECT_GT(vendor, 0u);
  EXPECT_LT(seconds, 0.5);  // measured 0.06 s on one core of the build machine
}

}  // namespace
}  // namespace headroom::classify
