// The fixed code of every generated exactune_heuristics.hpp and
// exactune_tables.hpp, after a family's tables: rule 1's device lookup and
// select() with its helpers. A source file of its own rather than strings in
// the emitter, so that it reads, and is compiled by a test, as the C++ it is;
// the build embeds it and heuristics_cpp_emitter.cpp pastes it (fixed_cpp.hpp
// says how: `family_size` becomes the family's size parameter, each slot line
// the family's lines, none for a family without size fallbacks).
//
// Its context: the family's namespace, after its LaunchConfig (whose variant
// is null for kEagerPath), table_types.inc.hpp's types and the tables kTable,
// kArchDefaults, kGlobalDefault and kVerified. Self-contained constexpr C++17
// that includes nothing, so that the generated header compiles wherever a host
// compiler does; hence same_name(), as std::strcmp is not constexpr.
// -- the emitter pastes from the next line on --
// What select() answers where no verified configuration applies: no configuration, run the framework's
// chain.
inline constexpr LaunchConfig kEagerPath{};
constexpr bool runs_eager(const LaunchConfig& c) { return c.variant == nullptr; }

// Whether two device names are the same text; a null name equals none.
constexpr bool same_name(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return false;
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// The device select() answers from (none: nullptr), and whether its table
// applies: found by name or by compute capability and SM count, not by
// compute capability alone.
struct FoundDevice {
  const ArchDefault* device;
  bool table_applies;
};

constexpr FoundDevice find_device(const char* device_name, int cc_major, int cc_minor, int sm_count) {
  for (const ArchDefault& d : kArchDefaults) {
    if (same_name(d.device_name, device_name)) return {&d, true};
  }
  for (const ArchDefault& d : kArchDefaults) {
    if (d.cc_major == cc_major && d.cc_minor == cc_minor && d.sm_count == sm_count) return {&d, true};
  }
  for (const ArchDefault& d : kArchDefaults) {
    if (d.cc_major == cc_major && d.cc_minor == cc_minor) return {&d, false};
  }
  return {nullptr, false};
}

// Whether `c` was proven bit-exact at this family_size for the problems of
// `device` (the one find_device found; nullptr: none): by evidence for that
// device, or, where it has no record of its own, by the host's record.
constexpr bool verified(const LaunchConfig& c, int family_size, const ArchDefault* device) {
  for (const VerifiedSizes& v : kVerified) {
    const bool applies = v.device_name == nullptr ? device == nullptr || !device->own_record
                                                  : device != nullptr && same_name(v.device_name, device->device_name);
    if (applies && same_name(v.variant, c.variant) && family_size >= v.first && family_size <= v.last &&
        (family_size - v.first) % v.step == 0) {
      return true;
    }
  }
  return false;
}

// Whether the size and the data let `c` run: none of the narrowing conditions holds for it.
constexpr bool fits(const LaunchConfig& c, int family_size, int alignment) {
  // -- slot: fallback conditions --
  return true;
}

// A choice (a bucket or a device default) narrowed for the problem, where that
// configuration was verified at the family_size; else its narrowed forms, where they fit and were verified; else
// kEagerPath: see the rules above.
template <class Choice>
constexpr LaunchConfig answer(const Choice& c, int family_size, int alignment, const ArchDefault* device) {
  if (fits(c.config, family_size, alignment) && verified(c.config, family_size, device)) return c.config;
  // -- slot: fallback answers --
  return kEagerPath;
}

// The launch configuration, or kEagerPath (runs_eager): run the framework's chain.
constexpr LaunchConfig select(const char* device_name, int cc_major, int cc_minor, int sm_count, int family_size,
                              long long rows, int alignment) {
  if (alignment % 8 != 0) return kEagerPath;  // 5.
  const FoundDevice found = find_device(device_name, cc_major, cc_minor, sm_count);  // 1.
  if (found.device != nullptr) {
    const ArchDefault& d = *found.device;
    for (const Entry& e : kTable) {  // 2.
      const bool tuned = found.table_applies && same_name(e.device_name, d.device_name) && e.family_size == family_size;
      if (tuned && (e.max_rows < 0 || rows <= e.max_rows)) {
        const LaunchConfig c = answer(e, family_size, alignment, &d);
        if (!runs_eager(c)) return c;
        break;
      }
    }
    const LaunchConfig c = answer(d, family_size, alignment, &d);  // 3.
    if (!runs_eager(c)) return c;
  }
  if (fits(kGlobalDefault, family_size, alignment) && verified(kGlobalDefault, family_size, found.device)) {
    return kGlobalDefault;  // 4.
  }
  return kEagerPath;  // 5.
}
