#include "document/xml_part.h"

#include <sstream>
#include <vector>

#include "util/error.h"

namespace nmt::document {
namespace {

constexpr size_t kMaxDepth = 256;

size_t depth_of(const pugi::xml_node& root) {
  size_t deepest = 0;
  std::vector<std::pair<pugi::xml_node, size_t>> stack{{root, 0}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    if (deepest > kMaxDepth) return deepest;
    for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) stack.push_back({c, depth + 1});
  }
  return deepest;
}

}  // namespace

void parse_xml_part(pugi::xml_document& doc, const std::string& xml, const std::string& name) {
  // Whitespace-only text is kept: in a run (<w:t xml:space="preserve"> </w:t>) it is content.
  const unsigned options = pugi::parse_default | pugi::parse_ws_pcdata | pugi::parse_declaration | pugi::parse_doctype;
  const pugi::xml_parse_result result = doc.load_buffer(xml.data(), xml.size(), options, pugi::encoding_utf8);
  if (!result) {
    throw DataError(name + " is not well-formed XML (" + result.description() + " at byte " +
                    std::to_string(result.offset) + ").");
  }
  for (pugi::xml_node c = doc.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_doctype) {
      throw DataError(name + " declares a DOCTYPE, which no document part does; it is refused (entities are not expanded).");
    }
  }
  if (depth_of(doc) > kMaxDepth) {
    throw DataError(name + " nests elements over " + std::to_string(kMaxDepth) + " deep; it is refused.");
  }
}

std::string write_xml_part(const pugi::xml_document& doc) {
  std::ostringstream out;
  doc.save(out, "", pugi::format_raw | pugi::format_no_declaration, pugi::encoding_utf8);
  return out.str();
}

std::string element_text(const pugi::xml_node& node) {
  std::string out;
  std::vector<pugi::xml_node> stack{node};
  while (!stack.empty()) {
    const pugi::xml_node n = stack.back();
    stack.pop_back();
    if (n.type() == pugi::node_pcdata || n.type() == pugi::node_cdata) out += n.value();
    std::vector<pugi::xml_node> children;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) children.push_back(c);
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

}  // namespace nmt::document
