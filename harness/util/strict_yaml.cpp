#include "util/strict_yaml.hpp"

namespace exactune::strict_yaml {

Fields Value::map(std::string what, const Keys& known) const {
  if (!node_.IsMap()) source_->fail(line_, "{} must be a map, got {}", key_, describe(node_));
  return Fields(*source_, node_, line_, std::move(what), known);
}

YAML::Node load_document(std::string_view text, const Source& source, std::string_view expected) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    source.fail(std::max(e.mark.line, 0) + 1, "YAML syntax error: {}", e.msg);
  }
  if (documents.empty() || documents.front().IsNull()) source.fail(1, "the file is empty; expected {}", expected);
  if (documents.size() > 1) source.fail(line_of(documents[1]), "the file holds one YAML document; this is a second one");
  if (!documents.front().IsMap()) {
    source.fail(line_of(documents.front()), "expected {}, got {}", expected, describe(documents.front()));
  }
  return documents.front();
}

}  // namespace exactune::strict_yaml
