#include "strict_yaml.hpp"

namespace exactune::strict_yaml {

Fields Value::map(std::string what, const Keys& known) const {
  if (!node_.IsMap()) source_->fail(line_, "{} must be a map, got {}", key_, describe(node_));
  return Fields(*source_, node_, line_, std::move(what), known);
}

}  // namespace exactune::strict_yaml
