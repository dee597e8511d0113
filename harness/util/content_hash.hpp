// A content hash for keys and names: what the compile cache keys its entries
// by, the host compiler its libraries, the verifier its per-case seeds and the
// journals their file names. Not a cryptographic hash: it tells contents apart,
// it does not resist someone who crafts a collision.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>

namespace exactune {

// 128-bit FNV-1a of the parts, as 32 hex digits; parts are length-prefixed so
// that ("ab","c") and ("a","bc") differ.
std::string content_hash(std::initializer_list<std::string_view> parts);

}  // namespace exactune
