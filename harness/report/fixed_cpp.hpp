// The fixed C++ that every generated header carries (the files of
// harness/report/generated/, embedded by the build), as the C++ emitter pastes
// it around a family's tables. Each file is C++ as it stands, so that a test
// compiles it and an editor reads it; three conventions mark what the emitter
// changes:
//   - everything down to the line "// -- the emitter pastes from the next line on --"
//     is the file's own documentation, left out;
//   - `family_size` stands for the family's size parameter (select()'s size
//     argument, Entry's size member), replaced wherever it stands as a word;
//   - a line "// -- slot: <name> --" is replaced by the family's lines for that
//     slot (none where the family has no size fallbacks: the file as it stands
//     is the code of such a family).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace exactune {

// The types of the tables: slot "fallback members" in Entry and ArchDefault.
inline constexpr const char* kTableTypesSource = "harness/report/generated/table_types.inc.hpp";
// select() and its helpers: slots "fallback conditions" (in fits()) and
// "fallback answers" (in answer()).
inline constexpr const char* kSelectSource = "harness/report/generated/select.inc.hpp";

// The word that stands for the family's size parameter.
inline constexpr std::string_view kSizePlaceholder = "family_size";

struct FixedCppSlot {
  std::string name;   // as its line spells it: "// -- slot: <name> --"
  std::string lines;  // whole lines, each ending in '\n'; empty for none
};

// The embedded file at `path` as the emitter pastes it: what follows its paste
// line, with `size_parameter` for kSizePlaceholder and each slot's lines for
// every line of that slot. Throws exactune::error when the file has no paste
// line, a slot named has no line, or a slot line is left unfilled: the file and
// the emitter disagree.
std::string paste_fixed_cpp(std::string_view path, std::string_view size_parameter,
                            const std::vector<FixedCppSlot>& slots);

}  // namespace exactune
