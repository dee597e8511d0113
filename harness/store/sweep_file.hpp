// sweep.yaml: the results of one sweep (results.hpp) as a file that a person can
// read, that diffs line by line, and that the reports and the gate read back.
// Every double is written in its shortest form that reads back to the same bits,
// so writing and reading again changes nothing.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include <exactune/results.hpp>

namespace exactune {

// The version of the format, written as `exactune_sweep: 6`. Versions 1 to 5
// are still read: version 5 had no SM clock record (a shape's `sm_clock`), and
// a sweep whose timer read no clock is written as version 5 still (or older, as
// below); version 4 kept no raw samples (each figure its summary only:
// no `samples_us`), and a sweep that keeps none is written as version 4 still;
// version 3 had no search strategy (every exact variant was timed fully: no
// `strategy`, no variant `screened_out`), and a sweep that records none is
// written as version 3 still; version 2 had no counts (each shape's
// `variant_count`, and `shape_count` on the last line), so a file of it cut
// short or with records cut out is read as it is; version 1 also had no
// rotated figures, its hot figures were L2-resident and its reference chain
// was called "eager". A reader refuses any other.
inline constexpr int kSweepFormatVersion = 6;
inline constexpr int kOldestSweepFormatVersion = 1;

// A shape is written as its name, model, parameters (in its family's order, as
// a shape file spells them), bytes moved, its rotation, its timings in every
// regime and its run-to-run noise.
std::string to_sweep_yaml(const SweepResults& results);

// Reads a sweep file's text; `source` names it in error messages. The file's
// family (FamilyRegistry) names its shapes' parameter keys and derives each
// shape's size and rows from them. Throws exactune::input_error "<source>:<line>:
// <what is wrong>" on a missing or unknown key, a value of the wrong type or
// out of range (a time NaN, negative or zero; samples below 1; a samples_us
// list that is not of positive finite numbers, as many as `samples` says), an unknown
// family, a parameter its family refuses, a shape name that breaks the rule
// of names (shape_name_problem), a shard count or index past kMaxShards, a
// shape or variant named twice, a variant the family's space does not produce
// at the shape's size (or a planted one, "<variant>.planted-<kind>", outside a
// file with `planted: true`), or counts that do not add up; and on any file
// beyond the bounds of strict_yaml::load_document.
SweepResults parse_sweep_yaml(std::string_view text, const std::string& source);

// Whether `variant` is a planted copy, "<variant>.planted-<kind>": a kernel
// broken on purpose, in a sweep that says `planted: true`.
bool is_planted_variant(std::string_view variant);

// Writes to a temporary file beside `path` and renames it over `path`, so a
// reader never sees half a file and a failed write leaves the old one intact.
// Creates the parent folder. Throws exactune::error when it cannot.
void write_sweep_file(const SweepResults& results, const std::filesystem::path& path);
SweepResults read_sweep_file(const std::filesystem::path& path);

}  // namespace exactune
