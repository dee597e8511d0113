// The time of day as records keep it: UTC, ISO 8601, to the second.
#pragma once
#include <string>

namespace exactune {

std::string utc_now();  // e.g. "2026-12-01T10:49:05Z"

}  // namespace exactune
