#pragma once
// Each subcommand file registers itself with a static `command_registration`; main.cpp builds the
// CLI11 app from the registry. A subcommand parses its options, calls the library, prints.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace headroom::cli {

struct command {
  std::string name;
  int order;  // position in --help
  // Adds the subcommand to `app` and returns the function to run when it was chosen; the function
  // returns the process exit status.
  std::function<std::function<int()>(CLI::App& app)> setup;
};

std::vector<command>& registry();

struct command_registration {
  explicit command_registration(command c) { registry().push_back(std::move(c)); }
};

}  // namespace headroom::cli
