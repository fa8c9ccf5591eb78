// The report on disk: one HTML file, or Markdown and its plots, never half written.
#include <fmt/format.h>

#include <cctype>
#include <fstream>

#include "headroom/report/document.hpp"
#include "headroom/util/error.hpp"

namespace headroom::report {

void write_report_file(const document& d, const std::filesystem::path& path, report_format format) {
  const auto partial = std::filesystem::path(path).concat(".partial");
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw input_error(fmt::format("cannot create '{}': {}", path.parent_path().string(), ec.message()));
  }
  {
    std::ofstream out(partial, std::ios::binary);
    if (!out) throw input_error(fmt::format("cannot write '{}'", path.string()));
    if (format == report_format::markdown) {
      const auto plots = std::filesystem::path(path).replace_extension("").concat("-plots");
      std::error_code ec;
      std::filesystem::create_directories(plots, ec);
      if (ec) throw input_error(fmt::format("cannot create '{}': {}", plots.string(), ec.message()));
      write_markdown(out, d, [&](std::string_view name, const std::string& svg) {
        std::string file(name);
        for (char& ch : file) ch = std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' ? ch : '-';
        file += ".svg";
        std::ofstream plot(plots / file, std::ios::binary);
        if (!(plot << svg)) throw input_error(fmt::format("cannot write '{}'", (plots / file).string()));
        return (plots.filename() / file).string();
      });
    } else {
      write_html(out, d);
    }
    if (!out.flush()) throw input_error(fmt::format("cannot write '{}'", path.string()));
  }
  std::filesystem::rename(partial, path);
}

}  // namespace headroom::report
