#pragma once
// A small SVG writer for the report's plots (docs/architecture.md says why it is our own): text
// stays <text> a reader can select and copy, every mark carries its figure in a <title> (shown on
// hover) and in data-* attributes (read by tests and scripts), and the output is deterministic.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::report::svg {

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string escape(std::string_view s);
// A coordinate or length: at most two decimals, no trailing zeros ("12.5", "3").
std::string number(double v);

enum class anchor { start, middle, end };

// Extra attributes of one element: {"data-share", "0.4123"}, {"class", "bar"}. Values are escaped.
using attributes = std::vector<std::pair<std::string, std::string>>;

class canvas {
 public:
  // width x height user units; `title` and `description` become the SVG's accessible name and
  // description; `id` names it for links and CSS.
  canvas(double width, double height, std::string_view id, std::string_view title, std::string_view description);

  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip,
            const attributes& extra = {});
  void line(double x1, double y1, double x2, double y2, std::string_view css_class, const attributes& extra = {});
  // A polyline through the points, in order.
  void path(const std::vector<std::pair<double, double>>& points, std::string_view stroke, std::string_view css_class,
            std::string_view tooltip, const attributes& extra = {});
  void circle(double x, double y, double r, std::string_view fill, std::string_view tooltip,
              const attributes& extra = {});
  void text(double x, double y, std::string_view s, std::string_view css_class, anchor a = anchor::start,
            const attributes& extra = {});
  // Text turned 90 degrees counter-clockwise about (x, y): a y-axis label.
  void vertical_text(double x, double y, std::string_view s, std::string_view css_class);
  // Definitions (patterns) placed before every mark.
  void define(std::string_view xml);
  // Opens and closes a group (<g>) with attributes.
  void open_group(const attributes& attrs);
  void close_group();

  double width() const { return width_; }
  double height() const { return height_; }
  std::string str() const;

 private:
  double width_, height_;
  std::string head_, defs_, body_;
};

}  // namespace headroom::report::svg
