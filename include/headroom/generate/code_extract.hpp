#pragma once
// The candidate's code, cut from a model's answer. Answers put code in Markdown fences (```python,
// ```py, ``` or ~~~), sometimes several (a CUDA source, then the Python that loads it), sometimes
// none at all, and reasoning models may think aloud in <think>...</think> first.
#include <optional>
#include <string>
#include <string_view>

namespace headroom::generate {

struct extracted_code {
  std::optional<std::string> code;  // none: the answer holds no candidate
  int blocks = 0;  // fenced blocks found (after any <think> section)
  std::string how;  // how the code was chosen, for the log ("the one python block", ...)
};

// The rule (docs/generate.md, "Cutting the code out"):
//  1. text inside <think>...</think> is dropped (an unclosed <think> drops everything after it);
//  2. of the fenced blocks, the last one that defines `class ModelNew` is the candidate;
//  3. else, when no block does, the last python-tagged (or untagged) block;
//  4. with no fence at all, the whole answer when it defines `class ModelNew` (a bare source);
//  5. else none: the answer is recorded as holding no code.
// An unclosed fence (an answer cut at max_tokens) runs to the end of the answer.
extracted_code extract_code(std::string_view answer);

}  // namespace headroom::generate
