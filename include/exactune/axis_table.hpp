// A family's axis table: the one place an axis of its variant space is spelled.
// A row gives an axis, its description, its values and each value's spelling as
// a template argument of the family's kernel; a part of the space (a family
// whose variants run different kernels has several, named by the values of one
// axis) gives how its variants are named, which kernel they compile and which
// axes it holds at their first values. The table drives the family's axes(),
// the decoding of a variant's values into its config struct, its variant names
// and the name expressions of its compile requests: when each of these spelled
// the axes by hand, a slip between them compiled a wrong kernel rather than
// failing.
//
// The string-level table is AxisTable (its code is in harness/space/); the
// typed one, TypedAxisTable<Config>, adds the config struct each row decodes
// into.
#pragma once
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <exactune/compile_request.hpp>
#include <exactune/error.hpp>
#include <exactune/family.hpp>

namespace exactune {

// One segment of a part's variant names: text in which {axis} stands for the
// axis's value (a value is its own spelling in names; the text around it gives
// the prefix, e.g. "w{num_warps}"). A segment made by unless_first() is left
// out where every axis in it holds its first value, so that a name shows such
// a lever only where it is pulled.
struct NameSegment {
  // Implicit, so that a layout is written as plain strings.
  NameSegment(const char* pattern) : pattern(pattern) {}
  NameSegment(std::string pattern) : pattern(std::move(pattern)) {}
  std::string pattern;
  bool unless_first = false;
};

inline NameSegment unless_first(std::string pattern) {
  NameSegment segment(std::move(pattern));
  segment.unless_first = true;
  return segment;
}

// The kernel template a part compiles: its name expression is
// `kernel<size, the arguments' spellings...>`, the size being the value of the
// family's size parameter.
struct KernelTemplate {
  std::string main_file;               // embedded path of the template
  std::string kernel;                  // e.g. "&exactune_kernels::copy_bytes"
  std::vector<std::string> arguments;  // axes, in the template's order after the size
};

// Axes a part holds at their first values: they are no lever there, and a
// combination that sets one otherwise is excluded with `why` (the family's
// exclusion() asks AxisTable::held_off() first).
struct HeldAxes {
  std::vector<std::string> axes;
  std::string why;
};

// Written with designated initializers; a member left out is empty.
struct AxisPart {
  std::string name{};                      // a value of the table's part axis; "" in a table of one part
  std::vector<NameSegment> name_layout{};  // every axis but the part axis appears once
  std::vector<HeldAxes> held{};            // checked in this order
  std::optional<KernelTemplate> kernel{};  // none: the family builds this part's requests itself
};

// One axis with each value's spelling as a template argument ("" where no
// kernel takes the value); a part whose kernel spells the axis otherwise has
// its own spellings.
struct AxisRow {
  Axis axis;
  std::vector<std::string> in_template;
  std::map<std::string, std::vector<std::string>> in_template_of_part;
};

class AxisTable {
 public:
  // Throws exactune::error where the table could name two variants alike or
  // compile two values alike: repeated values or spellings, a layout that
  // leaves an axis out or names a held one in every variant, an unknown axis.
  // `part_axis` names the axis whose value is a variant's part; "" for a table
  // of one part, named "".
  AxisTable(std::vector<AxisRow> rows, std::string part_axis, std::vector<AxisPart> parts);

  std::vector<Axis> axes() const;
  const std::vector<AxisRow>& rows() const { return rows_; }
  const AxisPart& part_of(const std::vector<Param>& params) const;

  // Whether `axis` is a lever of these params' part (not held there).
  bool applies(const std::string& axis, const std::vector<Param>& params) const;
  // The `why` of the first held group with an axis off its first value; "" when none is.
  std::string held_off(const std::vector<Param>& params) const;

  std::string variant_name(const std::vector<Param>& params) const;
  // The combination this name names; none where no combination, or several, has it.
  std::optional<std::vector<Param>> parse_name(const std::string& name) const;

  // The value's spelling as an argument of `part`'s kernel; "" where it has none.
  const std::string& spelling(const AxisPart& part, const std::string& axis, const std::string& value) const;
  // `kernel<size, spellings...>` of the params' part; throws where the part has
  // no kernel of its own or a value no spelling there.
  std::string name_expression(const std::vector<Param>& params, int size) const;
  CompileRequest request(const Variant& variant, std::string request_name, int size, const std::string& target) const;

 protected:
  // The index of the params' value of row `row` in its values; throws where
  // the params give the axis no value, or one it does not have.
  std::size_t value_index(std::size_t row, const std::vector<Param>& params) const;

 private:
  struct NameToken {
    std::string literal;
    std::size_t row = 0;  // meant when literal is empty
  };
  struct CompiledSegment {
    std::vector<NameToken> tokens;
    std::vector<std::size_t> rows;
    bool unless_first = false;
  };

  std::size_t row_index(const std::string& axis) const;
  std::size_t part_index(const std::vector<Param>& params) const;
  void check_part(const AxisPart& part, const std::vector<CompiledSegment>& layout) const;
  void match(std::size_t part, std::size_t segment, std::size_t token, std::size_t position, const std::string& name,
             std::vector<std::size_t>& chosen, std::vector<std::vector<Param>>& found) const;

  std::vector<AxisRow> rows_;
  std::string part_axis_;
  std::vector<AxisPart> parts_;
  std::vector<std::vector<CompiledSegment>> layouts_;  // per part
};

// ------------------------------------------------------------------ typed rows

// One value of an axis: as a Param carries it, as the config struct holds it,
// and as a template argument.
template <class T>
struct AxisValue {
  std::string value;
  T typed;
  std::string in_template;
};

// Integers that are their own value, field and template argument.
inline std::vector<AxisValue<int>> numerals(std::initializer_list<int> numbers) {
  std::vector<AxisValue<int>> values;
  for (int n : numbers) values.push_back({std::to_string(n), n, std::to_string(n)});
  return values;
}

template <class Config>
struct TypedAxisRow {
  AxisRow row;
  std::function<void(Config&, std::size_t)> set;                  // the value of this index into the field
  std::function<std::optional<std::size_t>(const Config&)> find;  // the index of the field's value

  // The spellings of the values as arguments of `part`'s kernel, where they differ from the row's.
  TypedAxisRow spelled_in(std::string part, std::vector<std::string> spellings) && {
    row.in_template_of_part[std::move(part)] = std::move(spellings);
    return std::move(*this);
  }
};

template <class Config, class T>
TypedAxisRow<Config> axis_row(std::string axis, std::string description, T Config::*field,
                              std::type_identity_t<std::vector<AxisValue<T>>> values) {
  TypedAxisRow<Config> typed;
  typed.row.axis.name = std::move(axis);
  typed.row.axis.description = std::move(description);
  std::vector<T> fields;
  for (AxisValue<T>& v : values) {
    typed.row.axis.values.push_back(std::move(v.value));
    typed.row.in_template.push_back(std::move(v.in_template));
    fields.push_back(v.typed);
  }
  typed.set = [field, fields](Config& config, std::size_t index) { config.*field = fields.at(index); };
  typed.find = [field, fields](const Config& config) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == config.*field) return i;
    }
    return std::nullopt;
  };
  return typed;
}

// The table with the config struct its rows decode into.
template <class Config>
class TypedAxisTable : public AxisTable {
 public:
  TypedAxisTable(std::vector<TypedAxisRow<Config>> rows, AxisPart only_part)
      : TypedAxisTable(std::move(rows), "", {std::move(only_part)}) {}
  TypedAxisTable(std::vector<TypedAxisRow<Config>> rows, std::string part_axis, std::vector<AxisPart> parts)
      : AxisTable(strings_of(rows), std::move(part_axis), std::move(parts)) {
    for (TypedAxisRow<Config>& r : rows) {
      set_.push_back(std::move(r.set));
      find_.push_back(std::move(r.find));
    }
  }

  Config decode(const std::vector<Param>& params) const {
    Config config;
    for (std::size_t row = 0; row < set_.size(); ++row) set_[row](config, value_index(row, params));
    return config;
  }

  // The params of a config, one per axis in the table's order; throws where a
  // field holds no value of its axis.
  std::vector<Param> encode(const Config& config) const {
    std::vector<Param> params;
    for (std::size_t row = 0; row < find_.size(); ++row) {
      const Axis& axis = rows()[row].axis;
      const std::optional<std::size_t> index = find_[row](config);
      if (!index) throw error("axis table: the config's field of axis '" + axis.name + "' holds none of its values");
      params.push_back({axis.name, axis.values[*index]});
    }
    return params;
  }

 private:
  static std::vector<AxisRow> strings_of(const std::vector<TypedAxisRow<Config>>& rows) {
    std::vector<AxisRow> strings;
    for (const TypedAxisRow<Config>& r : rows) strings.push_back(r.row);
    return strings;
  }

  std::vector<std::function<void(Config&, std::size_t)>> set_;
  std::vector<std::function<std::optional<std::size_t>(const Config&)>> find_;
};

}  // namespace exactune
