// The report on disk: one HTML file, or Markdown and its plots, each whole or not at all.
#include <fmt/format.h>

#include <cctype>

#include "headroom/report/document.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::report {

namespace {

void create_folder(const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw input_error(fmt::format("cannot create '{}': {}", folder.string(), ec.message()));
}

}  // namespace

void write_report_file(const document& d, const std::filesystem::path& path, report_format format,
                       std::span<const std::filesystem::path> inputs) {
  if (path.has_parent_path()) create_folder(path.parent_path());
  util::output_file out(path, inputs);
  if (format == report_format::markdown) {
    const auto plots = std::filesystem::path(path).replace_extension("").concat("-plots");
    create_folder(plots);
    write_markdown(out.stream(), d, [&](std::string_view name, const std::string& svg) {
      std::string file(name);
      for (char& ch : file) ch = std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' ? ch : '-';
      file += ".svg";
      util::output_file plot(plots / file, inputs);
      plot.stream() << svg;
      plot.commit();
      return (plots.filename() / file).string();
    });
  } else {
    write_html(out.stream(), d);
  }
  out.commit();
}

}  // namespace headroom::report
