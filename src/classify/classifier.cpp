// The ordered rule list and first-match classification.
#include "headroom/classify/classifier.hpp"

#include <deque>

#include <fmt/format.h>

#include "headroom/util/embedded.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/read_file.hpp"
#include "rule.hpp"

namespace headroom::classify {

struct classifier::impl {
  std::deque<rule> storage;  // stable addresses: classifications hold views into rules
  std::vector<const rule*> order;  // the order rules are tried in

  void add(std::vector<rule> rules, bool in_front) {
    std::vector<const rule*> added;
    added.reserve(rules.size());
    for (rule& r : rules) {
      storage.push_back(std::move(r));
      added.push_back(&storage.back());
    }
    order.insert(in_front ? order.begin() : order.end(), added.begin(), added.end());
  }
};

namespace {
bool looks_mangled(std::string_view name) { return name.starts_with("_Z") || name.starts_with("__Z"); }
}  // namespace

classifier::classifier() : impl_(new impl) {}
classifier::~classifier() { delete impl_; }
classifier::classifier(classifier&& other) noexcept : impl_(other.impl_) { other.impl_ = new impl; }
classifier& classifier::operator=(classifier&& other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}

classifier classifier::with_default_rules() {
  classifier c;
  for (const auto& file : util::default_rule_files()) {
    c.impl_->add(parse_rules(file.contents, file.name), /*in_front=*/false);
  }
  return c;
}

classifier classifier::with_user_rules(const std::vector<std::filesystem::path>& files) {
  auto c = with_default_rules();
  // Each file goes in front of what is loaded, so load the last first.
  for (auto it = files.rbegin(); it != files.rend(); ++it) c.add_rules_file(*it);
  return c;
}

void classifier::add_rules_file(const std::filesystem::path& path) {
  const auto text = util::read_file(path);
  if (!text) throw input_error(fmt::format("{}: cannot read rule file", path.string()));
  add_rules_text(*text, path.string());
}

void classifier::add_rules_text(std::string_view toml, std::string_view origin) {
  impl_->add(parse_rules(toml, origin), /*in_front=*/true);
}

classification classifier::classify(std::string_view kernel_name) const {
  // A mangled name is offered to rules twice: as given (rules that look at mangled spellings,
  // and names that do not demangle) and demangled (what almost every rule is written against).
  std::string demangled;
  const bool mangled = looks_mangled(kernel_name);
  if (mangled) demangled = demangle(kernel_name);
  const bool has_demangled = mangled && demangled != kernel_name;
  const indexed_text given(kernel_name);
  const indexed_text readable(has_demangled ? std::string_view(demangled) : std::string_view());
  for (const rule* r : impl_->order) {
    bool hit = false;
    switch (r->on) {
      case match_on::either:
        hit = r->matches(given) || (has_demangled && r->matches(readable));
        break;
      case match_on::demangled:
        hit = r->matches(has_demangled ? readable : given);
        break;
      case match_on::mangled:
        hit = mangled && r->matches(given);
        break;
    }
    if (hit) return {r->cat, r->prov, r->id, r->library};
  }
  return {};
}

std::size_t classifier::rule_count() const { return impl_->order.size(); }

std::vector<rule_summary> classifier::rules() const {
  std::vector<rule_summary> out;
  out.reserve(impl_->order.size());
  for (const rule* r : impl_->order) {
    out.push_back({r->id, r->origin, r->cat, r->prov, r->library, r->note, r->describe_matchers()});
  }
  return out;
}

}  // namespace headroom::classify
