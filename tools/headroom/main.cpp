// headroom: what is a faster kernel worth here?
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <sstream>

#include "command.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::cli {
std::vector<command>& registry() {
  static std::vector<command> commands;
  return commands;
}

namespace {
// The command list shows each command's first line; `headroom COMMAND --help` shows all of it.
class brief_formatter : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    const std::string& d = sub->get_description();
    CLI::detail::format_help(out, sub->get_display_name(true), d.substr(0, d.find('\n')), column_width_);
    return out.str();
  }
};
}  // namespace
}  // namespace headroom::cli

int main(int argc, char** argv) {
  using namespace headroom;
  CLI::App app{
      "headroom: what is a faster kernel worth in this workload?\n"
      "Classifies every GPU kernel of a trace, finds the share of wall clock a new kernel could\n"
      "replace (the addressable fraction), and projects what a kernel speedup buys end to end."};
  app.require_subcommand(1);
  app.formatter(std::make_shared<cli::brief_formatter>());
  app.set_version_flag("--version", "headroom 0.1.0");
  app.footer("Run 'headroom COMMAND --help' for a command's options. docs/method.md defines every figure.");

  auto& commands = cli::registry();
  std::stable_sort(commands.begin(), commands.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (auto& c : commands) {
    auto run = c.setup(app);
    runners.emplace_back(app.get_subcommand(c.name), std::move(run));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2, like bad input.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Every failure ends here as a message and status 2: an input error, a write that failed (a full
  // disk, a read-only folder), anything a library threw. Standard output is checked last, so output
  // that never reached its file or pipe is a failure too.
  try {
    for (auto& [sub, run] : runners) {
      if (!sub->parsed()) continue;
      const int status = run();
      util::finish_standard_output();
      return status;
    }
  } catch (const input_error& e) {
    fmt::print(stderr, "headroom: {}\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "headroom: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "headroom: error: {}\n", e.what());
    return 2;
  } catch (...) {
    fmt::print(stderr, "headroom: error: an unexpected failure\n");
    return 2;
  }
  return 1;
}
