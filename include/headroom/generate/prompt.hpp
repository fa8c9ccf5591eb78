#pragma once
// The prompts, as templates: data/prompts/ (compiled into the binary) or a user's own files.
// A template's {{name}} is replaced by the value of that name; docs/generate.md lists the names.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/generate/chat.hpp"
#include "headroom/generate/model_config.hpp"

namespace headroom::generate {

struct prompt_templates {
  std::string system;  // data/prompts/system.md
  std::string task;  // data/prompts/task.md: the first turn ({{problem_name}}, {{problem_source}}, {{example}})
  std::string example;  // data/prompts/example.md: the worked example put at {{example}}
  std::string feedback;  // data/prompts/feedback.md: a further turn ({{turn}}, {{evaluation}}, {{request}})
};

// The built-in templates, with the configuration's own system prompt, first-turn and further-turn
// templates read from their files when it names them. Throws input_error for a file that cannot be read or a
// template naming an unknown {{name}}.
prompt_templates templates_for(const model_config& config);

// `tmpl` with each {{name}} replaced by values[name]. Throws input_error, naming `origin`, for a
// name not in `values`.
std::string render(std::string_view tmpl, const std::map<std::string, std::string>& values, const std::string& origin);

// The first turn's messages: the system prompt and the task for this problem.
std::vector<chat_message> first_turn_messages(const prompt_templates& t, bool example, const std::string& problem_name,
                                              const std::string& problem_source);

}  // namespace headroom::generate
