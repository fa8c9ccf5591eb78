#include "headroom/generate/code_extract.hpp"

#include <fmt/format.h>

#include <regex>
#include <vector>

namespace headroom::generate {

namespace {

struct block {
  std::string tag;  // the info string's first word, lower case ("python", "cpp", "")
  std::string body;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string drop_thinking(std::string_view answer) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const auto open = answer.find("<think>", at);
    if (open == std::string_view::npos) {
      out.append(answer.substr(at));
      return out;
    }
    out.append(answer.substr(at, open - at));
    const auto close = answer.find("</think>", open);
    if (close == std::string_view::npos) return out;
    at = close + 8;
  }
}

// Fences per CommonMark: a line starting (after up to 3 spaces) with 3+ backticks or tildes; the
// block closes at a line of at least as many of the same character.
std::vector<block> fenced_blocks(const std::string& text) {
  std::vector<block> out;
  std::size_t pos = 0;
  bool inside = false;
  char fence_char = 0;
  std::size_t fence_len = 0;
  block current;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t indent = 0;
    while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
    std::string_view rest = line.substr(indent);
    std::size_t run = 0;
    const char c = rest.empty() ? 0 : rest[0];
    if (c == '`' || c == '~')
      while (run < rest.size() && rest[run] == c) ++run;
    if (!inside) {
      if (run >= 3) {
        inside = true;
        fence_char = c;
        fence_len = run;
        std::string_view info = rest.substr(run);
        while (!info.empty() && (info.front() == ' ' || info.front() == '\t')) info.remove_prefix(1);
        std::size_t word = 0;
        while (word < info.size() && info[word] != ' ' && info[word] != '\t' && info[word] != '{') ++word;
        current = block{lower(std::string(info.substr(0, word))), ""};
      }
    } else if (run >= fence_len && c == fence_char && rest.find_first_not_of(" \t", run) == std::string_view::npos) {
      inside = false;
      out.push_back(std::move(current));
    } else {
      current.body.append(line);
      current.body.push_back('\n');
    }
    pos = end + 1;
  }
  if (inside) out.push_back(std::move(current));  // cut short: what came is the block
  return out;
}

bool defines_model_new(const std::string& code) {
  static const std::regex pattern(R"((^|\n)\s*class\s+ModelNew\b)");
  return std::regex_search(code, pattern);
}

bool python_tag(const std::string& tag) { return tag.empty() || tag == "python" || tag == "py" || tag == "python3"; }

}  // namespace

extracted_code extract_code(std::string_view answer) {
  extracted_code out;
  const std::string text = drop_thinking(answer);
  const auto blocks = fenced_blocks(text);
  out.blocks = static_cast<int>(blocks.size());
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (defines_model_new(it->body)) {
      out.code = it->body;
      out.how = blocks.size() == 1 ? "the one fenced block"
                                   : fmt::format("block {} of {}, the last defining ModelNew",
                                                 blocks.size() - (it - blocks.rbegin()), blocks.size());
      return out;
    }
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (python_tag(it->tag) && it->body.find_first_not_of(" \t\r\n") != std::string::npos) {
      out.code = it->body;
      out.how = fmt::format("block {} of {}, the last python block (none defines ModelNew)",
                            blocks.size() - (it - blocks.rbegin()), blocks.size());
      return out;
    }
  if (blocks.empty() && defines_model_new(text)) {
    out.code = text;
    if (!out.code->empty() && out.code->back() != '\n') out.code->push_back('\n');
    out.how = "the whole answer (no fences; it defines ModelNew)";
    return out;
  }
  out.how = blocks.empty() ? "no fenced block and no ModelNew" : "no python block";
  return out;
}

}  // namespace headroom::generate
