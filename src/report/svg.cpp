#include "headroom/report/svg.hpp"

#include <fmt/format.h>

#include <cmath>

namespace headroom::report::svg {
namespace {

void append_attributes(std::string& out, const attributes& extra) {
  for (const auto& [k, v] : extra) out += fmt::format(" {}=\"{}\"", k, escape(v));
}

void append_tooltip(std::string& out, std::string_view tooltip, std::string_view element) {
  if (tooltip.empty()) {
    out += "/>\n";
  } else {
    out += fmt::format("><title>{}</title></{}>\n", escape(tooltip), element);
  }
}

std::string_view anchor_name(anchor a) {
  switch (a) {
    case anchor::start:
      return "start";
    case anchor::middle:
      return "middle";
    case anchor::end:
      return "end";
  }
  return "start";
}

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

canvas::canvas(double width, double height, std::string_view id, std::string_view title, std::string_view description)
    : width_(width), height_(height) {
  head_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{0}\" class=\"plot\" viewBox=\"0 0 {1} {2}\" width=\"{1}\" "
      "height=\"{2}\" role=\"img\" aria-labelledby=\"{0}-title {0}-desc\">\n<title id=\"{0}-title\">{3}</title>\n"
      "<desc id=\"{0}-desc\">{4}</desc>\n",
      escape(id), number(width), number(height), escape(title), escape(description));
}

void canvas::rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip,
                  const attributes& extra) {
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", number(x), number(y),
                       number(std::max(w, 0.0)), number(std::max(h, 0.0)), escape(fill));
  append_attributes(body_, extra);
  append_tooltip(body_, tooltip, "rect");
}

void canvas::line(double x1, double y1, double x2, double y2, std::string_view css_class, const attributes& extra) {
  body_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"{}\"", number(x1), number(y1), number(x2),
                       number(y2), escape(css_class));
  append_attributes(body_, extra);
  body_ += "/>\n";
}

void canvas::path(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                  std::string_view css_class, std::string_view tooltip, const attributes& extra) {
  if (points.empty()) return;
  std::string d;
  for (std::size_t i = 0; i < points.size(); ++i) {
    d += fmt::format("{}{} {}", i == 0 ? "M" : " L", number(points[i].first), number(points[i].second));
  }
  body_ += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" class=\"{}\"", d, escape(stroke), escape(css_class));
  append_attributes(body_, extra);
  append_tooltip(body_, tooltip, "path");
}

void canvas::circle(double x, double y, double r, std::string_view fill, std::string_view tooltip,
                    const attributes& extra) {
  body_ +=
      fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"", number(x), number(y), number(r), escape(fill));
  append_attributes(body_, extra);
  append_tooltip(body_, tooltip, "circle");
}

void canvas::text(double x, double y, std::string_view s, std::string_view css_class, anchor a,
                  const attributes& extra) {
  body_ += fmt::format("<text x=\"{}\" y=\"{}\" class=\"{}\"", number(x), number(y), escape(css_class));
  if (a != anchor::start) body_ += fmt::format(" text-anchor=\"{}\"", anchor_name(a));
  append_attributes(body_, extra);
  body_ += fmt::format(">{}</text>\n", escape(s));
}

void canvas::vertical_text(double x, double y, std::string_view s, std::string_view css_class) {
  body_ += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" class=\"{2}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">{3}</text>\n",
      number(x), number(y), escape(css_class), escape(s));
}

void canvas::define(std::string_view xml) { defs_ += xml; }

void canvas::open_group(const attributes& attrs) {
  body_ += "<g";
  append_attributes(body_, attrs);
  body_ += ">\n";
}

void canvas::close_group() { body_ += "</g>\n"; }

std::string canvas::str() const {
  std::string out = head_;
  if (!defs_.empty()) out += "<defs>" + defs_ + "</defs>\n";
  out += body_;
  out += "</svg>\n";
  return out;
}

}  // namespace headroom::report::svg
