// Text as it may stand in XML content or an attribute value (JUnit reports, SVG).
#pragma once
#include <string>
#include <string_view>

namespace exactune {

std::string xml_escape(std::string_view text);

}  // namespace exactune
