// The fixed types of every generated exactune_heuristics.hpp and
// exactune_tables.hpp that hold a family's tables: a bucket of a GPU's table
// (Entry), a GPU's default (ArchDefault) and where a variant was proven
// bit-exact (VerifiedSizes). A source file of its own rather than strings in
// the emitter, so that it reads, and is compiled by a test, as the C++ it is;
// the build embeds it and heuristics_cpp_emitter.cpp pastes it (fixed_cpp.hpp
// says how: `family_size` becomes the family's size parameter, each slot line
// the family's lines).
//
// Its context: the family's namespace, after the family's LaunchConfig (a
// value per axis and the variant's name). Self-contained C++17 that includes
// nothing, as the generated header is.
// -- the emitter pastes from the next line on --
// One bucket of one GPU's table: at `family_size`, rows up to max_rows (-1: no bound).
struct Entry {
  const char* device_name;  // as the CUDA driver names the GPU
  int cc_major;
  int cc_minor;
  int sm_count;
  int family_size;
  long long max_rows;
  LaunchConfig config;
  // -- slot: fallback members --
};

// A GPU's default: for its sizes without a table, and for other GPUs of its
// architecture.
struct ArchDefault {
  const char* device_name;
  int cc_major;
  int cc_minor;
  int sm_count;     // of the GPU it was measured on
  bool own_record;  // its defaults were verified on it: only evidence for it serves it
  LaunchConfig config;
  // -- slot: fallback members --
};

// A variant proven bit-exact at `family_size` = first, first + step, ..., last,
// for the problems select() answers from device `device_name`'s table, or
// (nullptr: the host's record) from any device without a record of its own,
// or from none.
struct VerifiedSizes {
  const char* variant;
  int first;
  int last;
  int step;
  const char* device_name;
};
