#include "report/heatmap_svg.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

#include "util/xml_escape.hpp"

namespace exactune {

std::vector<HeatmapFile> summary_heatmaps(const SweepResults& results, TimingRegime regime) {
  std::map<int, const ShapeResult*> largest;
  for (const ShapeResult& s : results.shapes) {
    if (s.fastest_exact(regime) == nullptr) continue;
    const ShapeResult*& current = largest[s.shape.size];
    if (current == nullptr || s.shape.rows() > current->shape.rows()) current = &s;
  }
  std::vector<HeatmapFile> files;
  for (const auto& [size, s] : largest) {
    // The name becomes a file name: a sweep.yaml edited by hand must not write outside the report's folder.
    if (const std::string problem = shape_name_problem(s->shape.name); !problem.empty()) {
      throw input_error(fmt::format("shape '{}' cannot name its heatmap file: {}", s->shape.name, problem));
    }
    files.push_back({size, s->shape.name, fmt::format("heatmap_{}.svg", s->shape.name)});
  }
  return files;
}

namespace {

// One cell: the best exact variant at (panel, column, row) of the heatmap's axes.
struct Cell {
  double value = 0;   // hot median, or its ratio to the copy
  std::string label;  // the other axes of the best variant
};

using CellKey = std::tuple<std::string, std::string, std::string>;  // panel value ("" for none), column, row

// A variant's value of `axis`: "" for no axis (a single panel), none when the variant lacks it.
std::optional<std::string> param_value(const std::vector<Param>& params, const std::string& axis) {
  if (axis.empty()) return std::string();
  const std::string* value = find_param(params, axis);
  return value ? std::optional<std::string>(*value) : std::nullopt;
}

// The axes a cell does not show by its position, e.g. "v16 registers": numbers
// after their axis's initial, as variant names spell them.
std::string other_axes_label(const std::vector<Param>& params, const HeatmapAxes& shown) {
  std::vector<std::string> parts;
  for (const Param& p : params) {
    if (p.axis == shown.columns || p.axis == shown.rows || p.axis == shown.panels) continue;
    const bool number = !p.value.empty() && std::isdigit(static_cast<unsigned char>(p.value.front()));
    parts.push_back(number ? p.axis.substr(0, 1) + p.value : p.value);
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::map<CellKey, Cell> best_cells(const ShapeResult& s, const HeatmapAxes& axes, TimingRegime regime) {
  const std::optional<Timing>& copy = s.copy(regime);
  const double scale = copy && copy->median_us > 0 ? 1 / copy->median_us : 1;
  std::map<CellKey, Cell> cells;
  for (const VariantResult& v : s.variants) {
    const std::optional<Timing>& t = v.timing(regime);
    if (!v.exact || !t || t->median_us <= 0) continue;
    const std::optional<std::string> panel = param_value(v.params, axes.panels);
    const std::optional<std::string> column = param_value(v.params, axes.columns);
    const std::optional<std::string> row = param_value(v.params, axes.rows);
    if (!panel || !column || !row) continue;  // not a variant of these axes: no cell to put it in
    const double value = t->median_us * scale;
    const auto [it, inserted] = cells.try_emplace({*panel, *column, *row});
    if (inserted || value < it->second.value) {
      it->second = {value, other_axes_label(v.params, axes)};
    }
  }
  return cells;
}

struct Rgb {
  double r, g, b;
};

// viridis, reversed so that fast reads bright: t = 0 fastest, 1 slowest.
Rgb colour_at(double t) {
  static constexpr std::array<Rgb, 5> stops = {
      {{0xfd, 0xe7, 0x25}, {0x5e, 0xc9, 0x62}, {0x21, 0x91, 0x8c}, {0x3b, 0x52, 0x8b}, {0x44, 0x01, 0x54}}};
  const double x = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(x), stops.size() - 2);
  const double f = x - static_cast<double>(i);
  const Rgb& a = stops[i];
  const Rgb& b = stops[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

std::string hex(const Rgb& c) {
  return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(std::lround(c.r)), static_cast<int>(std::lround(c.g)),
                     static_cast<int>(std::lround(c.b)));
}

// Dark text on bright cells, white on dark ones.
const char* text_colour(const Rgb& c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 140 ? "#000" : "#fff"; }

// The values of the family's axis `name`; {""} for no axis (a single panel).
std::vector<std::string> axis_values(const KernelFamily& family, const std::string& name) {
  if (name.empty()) return {""};
  for (const Axis& a : family.axes()) {
    if (a.name == name) return a.values;
  }
  throw error(fmt::format("family {}: its heatmap axis '{}' is none of its axes", family.name(), name));
}

constexpr int kCellWidth = 112, kCellHeight = 46, kLeft = 80, kTop = 104, kPanelGap = 72;
constexpr const char* kNoExactGrey = "#c8c8c8";

// Draws the heatmap; `position` maps a value to 0 (fastest) .. 1 (slowest).
class HeatmapSvg {
 public:
  HeatmapSvg(const KernelFamily& family, const ShapeResult& s, TimingRegime regime)
      : family_(family),
        axes_(family.heatmap_axes()),
        shape_(s),
        regime_(regime),
        cells_(best_cells(s, axes_, regime)),
        ratio_(s.copy(regime) && s.copy(regime)->median_us > 0),
        columns_(axis_values(family, axes_.columns)),
        rows_(axis_values(family, axes_.rows)),
        panels_(axis_values(family, axes_.panels)) {
    if (!cells_.empty()) low_ = high_ = cells_.begin()->second.value;
    for (const auto& [key, cell] : cells_) {
      low_ = std::min(low_, cell.value);
      high_ = std::max(high_, cell.value);
    }
  }

  std::string render() const {
    const int panel_width = kCellWidth * static_cast<int>(columns_.size());
    const int panel_height = kCellHeight * static_cast<int>(rows_.size());
    const int width = kLeft + static_cast<int>(panels_.size()) * (panel_width + kPanelGap);
    const int legend_top = kTop + panel_height + 56;
    const int height = legend_top + 60;
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1}\" fill=\"#fff\"/>\n",
        width, height);
    const Shape& shape = shape_.shape;
    text(out, 16, 24,
         fmt::format("{}: {} by {} × {} ({}={}, rows={})", shape.name, metric(), axes_.columns, axes_.rows,
                     family_.size_parameter(), shape.size, shape.rows()),
         "start", "font-size=\"15\" font-weight=\"bold\"");
    text(out, 16, 44,
         "each cell: the fastest bit-exact variant over the other axes, which its label names; the fastest cell is "
         "outlined red",
         "start", "fill=\"#444\"");
    for (std::size_t p = 0; p < panels_.size(); ++p) {
      panel(out, kLeft + static_cast<int>(p) * (panel_width + kPanelGap), panels_[p]);
    }
    legend(out, legend_top);
    return out + "</svg>\n";
  }

 private:
  std::string metric() const {
    return ratio_ ? fmt::format("{} median / copy", regime_label(regime_))
                  : fmt::format("{} median (µs)", regime_label(regime_));
  }
  std::string value_text(double v) const { return ratio_ ? fmt::format("{:.2f}×", v) : fmt::format("{:.2f} µs", v); }

  // Log scale: ratios between configurations matter, not differences.
  double position(double v) const { return high_ > low_ ? std::log(v / low_) / std::log(high_ / low_) : 0.0; }

  static void text(std::string& out, int x, int y, std::string_view content, std::string_view anchor,
                   std::string_view extra = "") {
    fmt::format_to(std::back_inserter(out), "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" {}>{}</text>\n", x, y, anchor,
                   extra, xml_escape(content));
  }

  void panel(std::string& out, int left, const std::string& panel_value) const {
    const int panel_width = kCellWidth * static_cast<int>(columns_.size());
    if (!axes_.panels.empty()) {
      text(out, left + panel_width / 2, kTop - 22, axes_.panels + ": " + panel_value, "middle", "font-weight=\"bold\"");
    }
    for (std::size_t x = 0; x < columns_.size(); ++x) {
      text(out, left + static_cast<int>(x) * kCellWidth + kCellWidth / 2, kTop - 6, columns_[x], "middle");
    }
    text(out, left + panel_width / 2, kTop + kCellHeight * static_cast<int>(rows_.size()) + 20, axes_.columns,
         "middle");
    const int axis_y = kTop + kCellHeight * static_cast<int>(rows_.size()) / 2;
    fmt::format_to(std::back_inserter(out),
                   "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">{2}"
                   "</text>\n",
                   left - 34, axis_y, xml_escape(axes_.rows));
    for (std::size_t y = 0; y < rows_.size(); ++y) {
      const int top = kTop + static_cast<int>(y) * kCellHeight;
      text(out, left - 8, top + kCellHeight / 2 + 4, rows_[y], "end");
      for (std::size_t x = 0; x < columns_.size(); ++x) {
        cell(out, left + static_cast<int>(x) * kCellWidth, top, {panel_value, columns_[x], rows_[y]});
      }
    }
  }

  void cell(std::string& out, int x, int y, const CellKey& key) const {
    const auto it = cells_.find(key);
    const bool fastest = it != cells_.end() && it->second.value == low_;
    const Rgb colour = it == cells_.end() ? Rgb{} : colour_at(position(it->second.value));
    fmt::format_to(
        std::back_inserter(out),
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>\n", x, y,
        kCellWidth, kCellHeight, it == cells_.end() ? kNoExactGrey : hex(colour), fastest ? "#d00" : "#fff",
        fastest ? 3 : 1);
    if (it == cells_.end()) {
      text(out, x + kCellWidth / 2, y + kCellHeight / 2 + 4, "no exact variant", "middle",
           "font-size=\"10\" fill=\"#555\"");
      return;
    }
    const std::string fill = fmt::format("fill=\"{}\"", text_colour(colour));
    text(out, x + kCellWidth / 2, y + 20, value_text(it->second.value), "middle", fill);
    text(out, x + kCellWidth / 2, y + 36, it->second.label, "middle", "font-size=\"10\" " + fill);
  }

  void legend(std::string& out, int top) const {
    constexpr int kStops = 5, kBarWidth = 320;
    out += "<defs><linearGradient id=\"scale\">";
    for (int i = 0; i < kStops; ++i) {
      const double t = static_cast<double>(i) / (kStops - 1);
      fmt::format_to(std::back_inserter(out), "<stop offset=\"{}\" stop-color=\"{}\"/>", t, hex(colour_at(t)));
    }
    out += "</linearGradient></defs>\n";
    text(out, kLeft, top - 6, metric() + ", log scale", "start", "font-size=\"11\"");
    fmt::format_to(std::back_inserter(out),
                   "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"url(#scale)\" stroke=\"#888\"/>\n", kLeft,
                   top, kBarWidth);
    text(out, kLeft, top + 28, value_text(low_) + " fastest", "start", "font-size=\"11\"");
    text(out, kLeft + kBarWidth, top + 28, value_text(high_) + " slowest", "end", "font-size=\"11\"");
    fmt::format_to(std::back_inserter(out),
                   "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#888\"/>\n",
                   kLeft + kBarWidth + 30, top, kNoExactGrey);
    text(out, kLeft + kBarWidth + 50, top + 12, "no exact, timed variant (excluded, failed or untimed)", "start",
         "font-size=\"11\"");
  }

  const KernelFamily& family_;
  HeatmapAxes axes_;
  const ShapeResult& shape_;
  TimingRegime regime_;
  std::map<CellKey, Cell> cells_;
  bool ratio_;
  std::vector<std::string> columns_, rows_, panels_;  // panels_: {""} for a single panel
  double low_ = 0, high_ = 0;
};

}  // namespace

std::string heatmap_svg(const SweepResults& results, int size, const std::string& shape_name, TimingRegime regime) {
  const KernelFamily& family = FamilyRegistry::find(results.family);
  for (const ShapeResult& s : results.shapes) {
    if (s.shape.name == shape_name && s.shape.size == size) return HeatmapSvg(family, s, regime).render();
  }
  throw error(fmt::format("the sweep has no shape {} at {} {}", shape_name, family.size_parameter(), size));
}

}  // namespace exactune
