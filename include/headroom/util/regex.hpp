#pragma once
// Regular expressions from users and rule files, matched in time linear in the text (RE2: no
// backtracking, no recursion per character), so a name of any length cannot crash or stall a
// command. RE2 syntax: no backreferences or lookaround; docs/rules.md says so.
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace headroom::util {

class regex {
 public:
  // Throws input_error "`what` 'PATTERN' is not a valid regular expression: WHY".
  regex(std::string_view pattern, std::string_view what);

  // True when the pattern matches anywhere in `text` (a search, not a whole-text match).
  bool search(std::string_view text) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;  // shared: copies of a compiled pattern share it
};

}  // namespace headroom::util
