#include "util/yaml_screen.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "util/strict_yaml.hpp"

namespace exactune {
namespace {

int line_of(const YAML::Mark& mark) { return std::max(mark.line, 0) + 1; }

// Fails at the first event that breaks a bound. yaml-cpp parses a stray ','
// outside a flow collection as an endless run of empty documents without
// consuming it, so the second document is refused at its first node, before
// the run can grow.
class Screen final : public YAML::EventHandler {
 public:
  Screen(std::string_view text, const strict_yaml::Source& source) : text_(text), source_(source) {}

  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark&) override { ++documents_; }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { node(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    source_.fail(line_of(mark), "aliases (*name) are not accepted: write the value out");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    node(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { --depth_; }
  void OnAnchor(const YAML::Mark& mark, const std::string&) override { refuse_anchor(mark); }

 private:
  void node(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (documents_ > 1) second_document(mark);
    if (anchor != YAML::NullAnchor) refuse_anchor(mark);
    if (++nodes_ > kMaxYamlNodes) {
      source_.fail(line_of(mark), "the file holds more than {} YAML nodes, more than exactune reads", kMaxYamlNodes);
    }
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    node(mark, anchor);
    if (++depth_ > kMaxYamlDepth) {
      source_.fail(line_of(mark), "lists and maps nest more than {} deep, deeper than exactune reads", kMaxYamlDepth);
    }
  }

  [[noreturn]] void refuse_anchor(const YAML::Mark& mark) const {
    source_.fail(line_of(mark), "anchors (&name) are not accepted: write each value out");
  }

  [[noreturn]] void second_document(const YAML::Mark& mark) const {
    const std::size_t at = static_cast<std::size_t>(std::max(mark.pos, 0));
    const char c = at < text_.size() ? text_[at] : '\0';
    if (c == ',' || c == ']' || c == '}') {
      source_.fail(line_of(mark), "YAML syntax error: unexpected '{}' outside a flow list or map", c);
    }
    source_.fail(line_of(mark), "the file holds one YAML document; this is a second one");
  }

  std::string_view text_;
  const strict_yaml::Source& source_;
  int documents_ = 0;
  int depth_ = 0;
  std::size_t nodes_ = 0;
};

}  // namespace

bool screen_yaml_document(std::string_view text, const strict_yaml::Source& source) {
  std::istringstream in{std::string(text)};
  Screen screen(text, source);
  try {
    YAML::Parser parser(in);
    // A second document fails at its first node, so this loop ends.
    while (parser.HandleNextDocument(screen)) {
    }
  } catch (const YAML::Exception& e) {
    source.fail(line_of(e.mark), "YAML syntax error: {}", e.msg);
  }
  return screen.documents() > 0;
}

}  // namespace exactune
