#include "compile/cubin_resources.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace exactune {
namespace {

// The ELF64 layout (System V gABI) as far as this reader needs it.
constexpr std::uint32_t kSymtab = 2;        // SHT_SYMTAB
constexpr std::size_t kSectionHeader = 64;  // Elf64_Shdr
constexpr std::size_t kSymbol = 24;         // Elf64_Sym
// .nv.info records: a format byte, an attribute byte, a 16-bit value; in the
// SVAL format that value is the size of a payload that follows. The
// per-kernel attributes are SVAL records of (symbol index, value) words.
constexpr std::uint8_t kFormatSval = 0x04;
constexpr std::uint8_t kAttrFrameSize = 0x11;
constexpr std::uint8_t kAttrRegCount = 0x2f;
// sm_90 and later reserve 1 KiB of every CTA's shared memory for the system,
// which the cubin counts in the kernel's section and ptxas -v does not.
constexpr std::string_view kReservedShared = ".nv.shared.reserved.";

class ElfReader {
 public:
  explicit ElfReader(std::string_view bytes) : bytes_(bytes) {}

  bool valid() const {
    return bytes_.size() >= 64 &&
           bytes_.substr(0, 4) ==
               "\x7f"
               "ELF" &&
           bytes_[4] == 2 && bytes_[5] == 1;
  }
  std::size_t sections() const { return u16(0x3c); }

  struct Section {
    std::string_view name;
    std::uint32_t type = 0;
    std::uint64_t offset = 0, size = 0;
    std::uint32_t link = 0;
  };

  std::optional<Section> section(std::size_t index) const {
    const std::uint64_t header = u64(0x28) + index * kSectionHeader;
    if (!in_bounds(header, kSectionHeader)) return std::nullopt;
    Section s;
    s.type = u32(header + 4);
    s.offset = u64(header + 24);
    s.size = u64(header + 32);
    s.link = u32(header + 40);
    const std::size_t names_index = u16(0x3e);
    const std::uint64_t names_header = u64(0x28) + names_index * kSectionHeader;
    if (!in_bounds(names_header, kSectionHeader)) return std::nullopt;
    s.name = string_at(u64(names_header + 24), u64(names_header + 32), u32(header));
    return s;
  }

  // The section's bytes; empty when they lie outside the file (or take none, as .nv.shared.* do).
  std::string_view contents(const Section& s) const {
    return in_bounds(s.offset, s.size) ? bytes_.substr(s.offset, s.size) : std::string_view{};
  }

  // The NUL-terminated string at `at` of the string table at (offset, size).
  std::string_view string_at(std::uint64_t table, std::uint64_t table_size, std::uint64_t at) const {
    if (!in_bounds(table, table_size) || at >= table_size) return {};
    const std::string_view rest = bytes_.substr(table + at, table_size - at);
    return rest.substr(0, rest.find('\0'));
  }

  std::uint16_t u16(std::uint64_t at) const { return static_cast<std::uint16_t>(read(at, 2)); }
  std::uint32_t u32(std::uint64_t at) const { return static_cast<std::uint32_t>(read(at, 4)); }
  std::uint64_t u64(std::uint64_t at) const { return read(at, 8); }

 private:
  bool in_bounds(std::uint64_t at, std::uint64_t n) const { return at <= bytes_.size() && n <= bytes_.size() - at; }
  // Little-endian; 0 outside the file.
  std::uint64_t read(std::uint64_t at, int n) const {
    if (!in_bounds(at, n)) return 0;
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(bytes_[at + i]);
    return v;
  }
  std::string_view bytes_;
};

// The index of symbol `name` in the symbol table, or nullopt.
std::optional<std::uint32_t> symbol_index(const ElfReader& elf, std::string_view name) {
  for (std::size_t i = 0; i < elf.sections(); ++i) {
    const auto s = elf.section(i);
    if (!s || s->type != kSymtab) continue;
    const auto strings = elf.section(s->link);
    if (!strings) return std::nullopt;
    const std::string_view table = elf.contents(*s);
    for (std::size_t k = 0; k + kSymbol <= table.size(); k += kSymbol) {
      std::uint32_t name_at = 0;
      std::memcpy(&name_at, table.data() + k, 4);  // the host is little-endian, as the cubin
      if (elf.string_at(strings->offset, strings->size, name_at) == name)
        return static_cast<std::uint32_t>(k / kSymbol);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<CubinFigures> read_cubin_figures(std::string_view cubin, std::string_view entry) {
  const ElfReader elf(cubin);
  if (!elf.valid()) return std::nullopt;
  const std::optional<std::uint32_t> symbol = symbol_index(elf, entry);
  if (!symbol) return std::nullopt;
  CubinFigures figures;
  bool registers_found = false, reserved_shared = false;
  const std::string own_shared = ".nv.shared." + std::string(entry);
  for (std::size_t i = 0; i < elf.sections(); ++i) {
    const auto s = elf.section(i);
    if (!s) return std::nullopt;
    if (s->name == own_shared) figures.shared_bytes = static_cast<int>(s->size);
    if (s->name.substr(0, kReservedShared.size()) == kReservedShared) reserved_shared = true;
    if (s->name != ".nv.info") continue;
    const std::string_view records = elf.contents(*s);
    for (std::size_t at = 0; at + 4 <= records.size();) {
      const std::uint8_t format = static_cast<std::uint8_t>(records[at]);
      const std::uint8_t attribute = static_cast<std::uint8_t>(records[at + 1]);
      std::uint16_t value = 0;
      std::memcpy(&value, records.data() + at + 2, 2);
      at += 4;
      if (format != kFormatSval) continue;
      if (value >= 8 && at + value <= records.size() && (attribute == kAttrRegCount || attribute == kAttrFrameSize)) {
        std::uint32_t kernel = 0, figure = 0;
        std::memcpy(&kernel, records.data() + at, 4);
        std::memcpy(&figure, records.data() + at + 4, 4);
        if (kernel == *symbol && attribute == kAttrRegCount)
          figures.registers = static_cast<int>(figure), registers_found = true;
        if (kernel == *symbol && attribute == kAttrFrameSize) figures.frame_bytes = static_cast<int>(figure);
      }
      at += value;
    }
  }
  if (!registers_found) return std::nullopt;
  if (reserved_shared && figures.shared_bytes >= 1024) figures.shared_bytes -= 1024;
  return figures;
}

std::optional<KernelResources> resources_from_cubin(std::string_view cubin, std::string_view entry) {
  const std::optional<CubinFigures> figures = read_cubin_figures(cubin, entry);
  if (!figures || figures->frame_bytes != 0) return std::nullopt;
  KernelResources r;
  r.registers = figures->registers;
  r.shared_bytes = figures->shared_bytes;
  return r;
}

std::optional<std::string_view> kernel_code(std::string_view cubin, std::string_view entry) {
  const ElfReader elf(cubin);
  if (!elf.valid()) return std::nullopt;
  const std::string name = ".text." + std::string(entry);
  for (std::size_t i = 0; i < elf.sections(); ++i) {
    const auto s = elf.section(i);
    if (s && s->name == name) return elf.contents(*s);
  }
  return std::nullopt;
}

}  // namespace exactune
