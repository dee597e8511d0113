#include "util/content_hash.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace exactune {

std::string content_hash(std::initializer_list<std::string_view> parts) {
  // FNV-1a over two 64-bit lanes with different offset bases.
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  constexpr std::uint64_t prime = 0x100000001b3ull;
  auto feed = [&](unsigned char c) {
    a = (a ^ c) * prime;
    b = (b ^ static_cast<unsigned char>(c + 0x5b)) * prime;
  };
  for (std::string_view part : parts) {
    const std::uint64_t n = part.size();
    for (int i = 0; i < 8; ++i) feed(static_cast<unsigned char>(n >> (8 * i)));
    for (char c : part) feed(static_cast<unsigned char>(c));
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

}  // namespace exactune
