#include "headroom/generate/model_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "headroom/util/error.hpp"

using namespace headroom::generate;
using ::testing::HasSubstr;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_models(text, "MODELS.toml", "/cfg");
  } catch (const headroom::input_error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(ModelConfig, DefaultsAtTheTopAndOneTablePerConfiguration) {
  auto m = parse_models(R"(
max_tokens = 4096
temperature = 0.7
concurrency = 8

[[model]]
name = "open-coder"
base_url = "http://localhost:8000/v1/"
model = "Qwen/Qwen2.5-Coder-32B-Instruct"

[[model]]
name = "frontier-reasoning"
base_url = "https://api.example.com/v1"
model = "big-model"
api_key_env = "EXAMPLE_API_KEY"
reasoning_effort = "high"
max_tokens_field = "max_completion_tokens"
temperature = 1.0
samples = 4
turns = 3
stream = true
price_in_per_mtok = 1.25
price_out_per_mtok = 10
user_template = "prompts/mine.md"
example = false
)",
                        "MODELS.toml", "/cfg");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].name, "open-coder");
  EXPECT_EQ(m[0].base_url, "http://localhost:8000/v1");  // the trailing slash dropped
  EXPECT_EQ(m[0].max_tokens, 4096);
  EXPECT_EQ(m[0].temperature, 0.7);
  EXPECT_EQ(m[0].concurrency, 8);
  EXPECT_EQ(m[0].samples, 1);
  EXPECT_TRUE(m[0].api_key_env.empty());
  EXPECT_FALSE(m[0].stream);
  EXPECT_EQ(m[1].temperature, 1.0);
  EXPECT_EQ(m[1].reasoning_effort, "high");
  EXPECT_EQ(m[1].max_tokens_field, "max_completion_tokens");
  EXPECT_EQ(m[0].max_tokens_field, "max_tokens");
  EXPECT_EQ(m[1].samples, 4);
  EXPECT_EQ(m[1].turns, 3);
  EXPECT_TRUE(m[1].stream);
  EXPECT_EQ(m[1].price_out_per_mtok, 10);
  EXPECT_EQ(m[1].user_template, "/cfg/prompts/mine.md");
  EXPECT_FALSE(m[1].example);
  EXPECT_EQ(m[1].max_tokens, 4096);
}

TEST(ModelConfig, MistakesAreNamed) {
  const std::string ok = "[[model]]\nname = \"a\"\nbase_url = \"http://h/v1\"\nmodel = \"m\"\n";
  EXPECT_THAT(error_of(ok + "api_key = \"sk-123\"\n"), HasSubstr("[[model]] 'a': unknown key 'api_key'"));
  EXPECT_THAT(error_of(ok + "samples = 0\n"), HasSubstr("samples: 0 is outside [1, 10000]"));
  EXPECT_THAT(error_of(ok + "temperature = \"hot\"\n"), HasSubstr("temperature: expected a number"));
  EXPECT_THAT(error_of(ok + "max_tokens_field = \"limit\"\n"), HasSubstr("max_tokens_field: \"limit\" is neither"));
  EXPECT_THAT(error_of(ok + "samples = 1.5\n"), HasSubstr("samples: expected a whole number"));
  EXPECT_THAT(error_of(ok + ok), HasSubstr("name used by an earlier [[model]]"));
  EXPECT_THAT(error_of("[[model]]\nname = \"a/b\"\nbase_url = \"http://h/v1\"\nmodel = \"m\"\n"),
              HasSubstr("letters, digits"));
  EXPECT_THAT(error_of("[[model]]\nname = \"a\"\nbase_url = \"localhost:8000\"\nmodel = \"m\"\n"),
              HasSubstr("not an http:// or https:// URL"));
  EXPECT_THAT(error_of("[[model]]\nname = \"a\"\nmodel = \"m\"\n"), HasSubstr("[[model]] 'a': no base_url"));
  EXPECT_THAT(error_of("[[model]]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\n"), HasSubstr("[[model]] #1: no name"));
  EXPECT_THAT(error_of("max_tokens = 5\n"), HasSubstr("no [[model]] tables"));
  EXPECT_THAT(error_of("[[model]\n"), HasSubstr("MODELS.toml:1:"));
  EXPECT_THAT(error_of("colour = 1\n" + ok), HasSubstr("top level: unknown key 'colour'"));
}

TEST(ModelConfig, TheExampleFileLoads) {
  auto m = load_models(HEADROOM_SOURCE_DIR "/data/models/MODELS.example.toml");
  ASSERT_EQ(m.size(), 5u);
  for (const auto& c : m) {
    EXPECT_FALSE(c.name.empty());
    EXPECT_FALSE(c.api_key_env.empty() && c.base_url.rfind("https://", 0) == 0)
        << c.name << ": a hosted API without a key variable";
  }
}
