// The string-level code of a family's axis table (include/exactune/axis_table.hpp):
// the checks that refuse a table which could name or compile two combinations
// alike, variant names from their layouts and back, and the name expressions
// of the parts' kernels.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include <exactune/axis_table.hpp>

namespace exactune {
namespace {

constexpr std::size_t kUnchosen = static_cast<std::size_t>(-1);

[[noreturn]] void refuse(const std::string& why) { throw error("axis table: " + why); }

// How a message names a part: a table of one part is the family's whole space.
std::string part_named(const AxisPart& part) {
  return part.name.empty() ? std::string("the table") : fmt::format("part '{}'", part.name);
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

AxisTable::AxisTable(std::vector<AxisRow> rows, std::string part_axis, std::vector<AxisPart> parts)
    : rows_(std::move(rows)), part_axis_(std::move(part_axis)), parts_(std::move(parts)) {
  std::set<std::string> names;
  for (const AxisRow& r : rows_) {
    const Axis& a = r.axis;
    if (a.name.empty() || !names.insert(a.name).second) refuse(fmt::format("axis '{}' is unnamed or repeated", a.name));
    if (a.values.empty()) refuse(fmt::format("axis '{}' has no values", a.name));
    if (std::set<std::string>(a.values.begin(), a.values.end()).size() != a.values.size()) {
      refuse(fmt::format("axis '{}' repeats a value, so two of its variants would share a name", a.name));
    }
    if (r.in_template.size() != a.values.size()) refuse(fmt::format("axis '{}' spells not each value once", a.name));
    for (const auto& [part, spellings] : r.in_template_of_part) {
      if (spellings.size() != a.values.size()) {
        refuse(fmt::format("axis '{}' spells not each value once in part '{}'", a.name, part));
      }
    }
  }
  if (part_axis_.empty()) {
    if (parts_.size() != 1 || !parts_[0].name.empty()) refuse("a table without a part axis has one part, named \"\"");
  } else {
    std::vector<std::string> part_names;
    for (const AxisPart& p : parts_) part_names.push_back(p.name);
    std::vector<std::string> values = rows_[row_index(part_axis_)].axis.values;
    std::sort(part_names.begin(), part_names.end());
    std::sort(values.begin(), values.end());
    if (part_names != values) refuse(fmt::format("the parts must be the values of axis '{}', each once", part_axis_));
  }
  for (const AxisRow& r : rows_) {
    for (const auto& [part, spellings] : r.in_template_of_part) {
      if (std::none_of(parts_.begin(), parts_.end(), [&](const AxisPart& p) { return p.name == part; })) {
        refuse(fmt::format("axis '{}' is spelled in part '{}', which the table does not have", r.axis.name, part));
      }
    }
  }
  for (const AxisPart& part : parts_) {
    std::vector<CompiledSegment> layout;
    for (const NameSegment& segment : part.name_layout) {
      CompiledSegment compiled;
      compiled.unless_first = segment.unless_first;
      const std::string& text = segment.pattern;
      for (std::size_t at = 0; at < text.size();) {
        if (text[at] == '}') refuse(fmt::format("{}: a '}}' without its '{{' in \"{}\"", part_named(part), text));
        if (text[at] != '{') {
          const std::size_t end = std::min(text.find_first_of("{}", at), text.size());
          compiled.tokens.push_back({text.substr(at, end - at), 0});
          at = end;
          continue;
        }
        const std::size_t close = text.find('}', at);
        if (close == std::string::npos) {
          refuse(fmt::format("{}: a '{{' without its '}}' in \"{}\"", part_named(part), text));
        }
        const std::size_t row = row_index(text.substr(at + 1, close - at - 1));
        compiled.tokens.push_back({"", row});
        compiled.rows.push_back(row);
        at = close + 1;
      }
      if (compiled.unless_first && compiled.rows.empty()) {
        refuse(fmt::format("{}: \"{}\" is left out where its axes hold their first values, but names none",
                           part_named(part), text));
      }
      layout.push_back(std::move(compiled));
    }
    check_part(part, layout);
    layouts_.push_back(std::move(layout));
  }
}

void AxisTable::check_part(const AxisPart& part, const std::vector<CompiledSegment>& layout) const {
  std::vector<int> named(rows_.size(), 0);
  std::vector<bool> named_unless_first(rows_.size(), false);
  for (const CompiledSegment& segment : layout) {
    for (std::size_t row : segment.rows) {
      ++named[row];
      if (segment.unless_first) named_unless_first[row] = true;
    }
  }
  for (std::size_t row = 0; row < rows_.size(); ++row) {
    const std::string& axis = rows_[row].axis.name;
    if (named[row] > 1) refuse(fmt::format("{} names axis '{}' twice", part_named(part), axis));
    if (named[row] == 0 && axis != part_axis_) {
      refuse(fmt::format("{} leaves axis '{}' out of its names, so two of its variants would share one",
                         part_named(part), axis));
    }
  }
  const std::vector<std::string> arguments = part.kernel ? part.kernel->arguments : std::vector<std::string>{};
  std::set<std::string> held;
  for (const HeldAxes& group : part.held) {
    for (const std::string& axis : group.axes) {
      const std::size_t row = row_index(axis);
      if (axis == part_axis_ || !held.insert(axis).second) {
        refuse(fmt::format("{} holds axis '{}' twice, or holds its own part axis", part_named(part), axis));
      }
      if (!named_unless_first[row]) {
        refuse(fmt::format("{} holds axis '{}' but names it in every variant", part_named(part), axis));
      }
      if (contains(arguments, axis)) {
        refuse(fmt::format("{} holds axis '{}' but passes it to its kernel", part_named(part), axis));
      }
    }
  }
  std::set<std::string> passed;
  for (const std::string& axis : arguments) {
    const AxisRow& row = rows_[row_index(axis)];
    if (!passed.insert(axis).second) refuse(fmt::format("{} passes axis '{}' twice", part_named(part), axis));
    std::set<std::string> spelled;
    for (const std::string& value : row.axis.values) {
      const std::string& spelling = this->spelling(part, axis, value);
      if (!spelling.empty() && !spelled.insert(spelling).second) {
        refuse(fmt::format("{} spells two values of axis '{}' as {}, so both would compile one kernel",
                           part_named(part), axis, spelling));
      }
    }
  }
}

std::vector<Axis> AxisTable::axes() const {
  std::vector<Axis> axes;
  for (const AxisRow& r : rows_) axes.push_back(r.axis);
  return axes;
}

std::size_t AxisTable::row_index(const std::string& axis) const {
  for (std::size_t row = 0; row < rows_.size(); ++row) {
    if (rows_[row].axis.name == axis) return row;
  }
  refuse(fmt::format("no axis '{}'", axis));
}

std::size_t AxisTable::value_index(std::size_t row, const std::vector<Param>& params) const {
  const Axis& axis = rows_[row].axis;
  // Params come in the table's order; any order is read.
  const std::string* given =
      row < params.size() && params[row].axis == axis.name ? &params[row].value : find_param(params, axis.name);
  if (given == nullptr) refuse(fmt::format("no value for axis '{}'", axis.name));
  const auto it = std::find(axis.values.begin(), axis.values.end(), *given);
  if (it == axis.values.end()) refuse(fmt::format("axis '{}' has no value '{}'", axis.name, *given));
  return static_cast<std::size_t>(it - axis.values.begin());
}

std::size_t AxisTable::part_index(const std::vector<Param>& params) const {
  if (part_axis_.empty()) return 0;
  const std::size_t row = row_index(part_axis_);
  const std::string& value = rows_[row].axis.values[value_index(row, params)];
  for (std::size_t part = 0; part < parts_.size(); ++part) {
    if (parts_[part].name == value) return part;
  }
  refuse(fmt::format("no part '{}'", value));  // the constructor made every value a part
}

const AxisPart& AxisTable::part_of(const std::vector<Param>& params) const { return parts_[part_index(params)]; }

bool AxisTable::applies(const std::string& axis, const std::vector<Param>& params) const {
  row_index(axis);  // an axis the table does not have is a caller's slip, not one that applies nowhere
  for (const HeldAxes& group : part_of(params).held) {
    if (contains(group.axes, axis)) return false;
  }
  return true;
}

std::string AxisTable::held_off(const std::vector<Param>& params) const {
  for (const HeldAxes& group : part_of(params).held) {
    for (const std::string& axis : group.axes) {
      if (value_index(row_index(axis), params) != 0) return group.why;
    }
  }
  return {};
}

std::string AxisTable::variant_name(const std::vector<Param>& params) const {
  std::string name;
  for (const CompiledSegment& segment : layouts_[part_index(params)]) {
    if (segment.unless_first && std::all_of(segment.rows.begin(), segment.rows.end(),
                                            [&](std::size_t row) { return value_index(row, params) == 0; })) {
      continue;
    }
    for (const NameToken& token : segment.tokens) {
      name += token.literal.empty() ? rows_[token.row].axis.values[value_index(token.row, params)] : token.literal;
    }
  }
  return name;
}

// Extends a match of `name` under part `part` from `position`, at token
// `token` of segment `segment`; `chosen` holds the value index of each row
// named so far. Complete matches whose params spell `name` back join `found`.
void AxisTable::match(std::size_t part, std::size_t segment, std::size_t token, std::size_t position,
                      const std::string& name, std::vector<std::size_t>& chosen,
                      std::vector<std::vector<Param>>& found) const {
  const std::vector<CompiledSegment>& layout = layouts_[part];
  if (segment == layout.size()) {
    if (position != name.size()) return;
    std::vector<Param> params;
    for (std::size_t row = 0; row < rows_.size(); ++row) {
      const Axis& axis = rows_[row].axis;
      // The part axis is the part's own name; a row not named holds its first value.
      const std::string& value = axis.name == part_axis_    ? parts_[part].name
                                 : chosen[row] == kUnchosen ? axis.values.front()
                                                            : axis.values[chosen[row]];
      params.push_back({axis.name, value});
    }
    const bool spelled_back = variant_name(params) == name;
    const bool known = std::find(found.begin(), found.end(), params) != found.end();
    if (spelled_back && !known) found.push_back(std::move(params));
    return;
  }
  const CompiledSegment& s = layout[segment];
  if (token == 0 && s.unless_first) match(part, segment + 1, 0, position, name, chosen, found);
  if (token == s.tokens.size()) {
    match(part, segment + 1, 0, position, name, chosen, found);
    return;
  }
  const NameToken& t = s.tokens[token];
  if (!t.literal.empty()) {
    if (name.compare(position, t.literal.size(), t.literal) == 0) {
      match(part, segment, token + 1, position + t.literal.size(), name, chosen, found);
    }
    return;
  }
  const std::vector<std::string>& values = rows_[t.row].axis.values;
  for (std::size_t v = 0; v < values.size(); ++v) {
    if (name.compare(position, values[v].size(), values[v]) != 0) continue;
    chosen[t.row] = v;
    match(part, segment, token + 1, position + values[v].size(), name, chosen, found);
    chosen[t.row] = kUnchosen;
  }
}

std::optional<std::vector<Param>> AxisTable::parse_name(const std::string& name) const {
  std::vector<std::vector<Param>> found;
  for (std::size_t part = 0; part < parts_.size(); ++part) {
    std::vector<std::size_t> chosen(rows_.size(), kUnchosen);
    match(part, 0, 0, 0, name, chosen, found);
  }
  if (found.size() != 1) return std::nullopt;
  return found.front();
}

const std::string& AxisTable::spelling(const AxisPart& part, const std::string& axis, const std::string& value) const {
  const AxisRow& row = rows_[row_index(axis)];
  const auto it = std::find(row.axis.values.begin(), row.axis.values.end(), value);
  if (it == row.axis.values.end()) refuse(fmt::format("axis '{}' has no value '{}'", axis, value));
  const auto own = row.in_template_of_part.find(part.name);
  const std::vector<std::string>& spellings = own != row.in_template_of_part.end() ? own->second : row.in_template;
  return spellings[static_cast<std::size_t>(it - row.axis.values.begin())];
}

std::string AxisTable::name_expression(const std::vector<Param>& params, int size) const {
  const AxisPart& part = part_of(params);
  if (!part.kernel) {
    refuse(fmt::format("{} has no kernel of its own: its family builds its requests", part_named(part)));
  }
  std::vector<std::string> arguments{std::to_string(size)};
  for (const std::string& axis : part.kernel->arguments) {
    const std::size_t row = row_index(axis);
    const std::string& value = rows_[row].axis.values[value_index(row, params)];
    const std::string& spelled = spelling(part, axis, value);
    if (spelled.empty()) refuse(fmt::format("{} {} is no argument of the kernel of {}", axis, value, part_named(part)));
    arguments.push_back(spelled);
  }
  return fmt::format("{}<{}>", part.kernel->kernel, fmt::join(arguments, ", "));
}

CompileRequest AxisTable::request(const Variant& variant, std::string request_name, int size,
                                  const std::string& target) const {
  const std::string expression = name_expression(variant.params, size);
  return CompileRequest{std::move(request_name), part_of(variant.params).kernel->main_file, expression, target, {}};
}

}  // namespace exactune
