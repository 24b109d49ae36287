#include "document/office_dialects.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <set>

namespace nmt::document {
namespace {

bool off(const pugi::xml_attribute& value) {
  const std::string v = value.value();
  return value && (v == "0" || v == "false" || v == "off");
}

ParagraphDialect make_wordprocessing() {
  ParagraphDialect d;
  d.paragraphs = {"w:p"};
  d.wrappers = {"w:r", "w:hyperlink", "w:smartTag", "w:ins", "w:customXml", "w:dir", "w:bdo"};
  d.text_leaves = {"w:t"};
  d.leaf_space_attribute = "xml:space";
  d.properties = {"w:rPr", "w:smartTagPr", "w:customXmlPr"};
  d.kept_first = {"w:pPr"};
  d.dropped = {"w:proofErr", "w:lastRenderedPageBreak"};
  // Revision ids, spell-check state and language tags: runs that differ only there look alike.
  d.unstyled = {"w:rsidR", "w:rsidRPr", "w:rsidDel", "w:rsidRDefault", "w:rsidP", "w:rsidRPr", "w:lang",
                "w:noProof", "w:spellingError", "w:grammarError", "w:rsidSect", "w:rsidTr", "w:history"};
  d.wrapper_left_alone = [](const pugi::xml_node& n) {
    if (std::strcmp(n.name(), "w:r") != 0) return false;
    const pugi::xml_node props = n.child("w:rPr");
    const pugi::xml_node vanish = props.child("w:vanish");
    if (vanish && !off(vanish.attribute("w:val"))) return true;  // hidden text
    return code_style(props.child("w:rStyle").attribute("w:val").value());
  };
  d.paragraph_left_alone = [](const pugi::xml_node& p) {
    return code_style(p.child("w:pPr").child("w:pStyle").attribute("w:val").value());
  };
  d.field_change = [](const pugi::xml_node& n) {
    if (std::strcmp(n.name(), "w:r") != 0) return 0;
    const std::string type = n.child("w:fldChar").attribute("w:fldCharType").value();
    return type == "begin" ? 1 : type == "end" ? -1 : 0;
  };
  return d;
}

ParagraphDialect make_drawing() {
  ParagraphDialect d;
  d.paragraphs = {"a:p"};
  d.wrappers = {"a:r"};
  d.text_leaves = {"a:t"};
  d.properties = {"a:rPr"};
  d.kept_first = {"a:pPr"};
  d.kept_last = {"a:endParaRPr"};
  d.unstyled = {"lang", "altLang", "dirty", "err", "smtClean", "smtId", "noProof"};
  return d;
}

ParagraphDialect make_opendocument(std::shared_ptr<const std::set<std::string>> code_styles) {
  ParagraphDialect d;
  d.paragraphs = {"text:p", "text:h"};
  d.wrappers = {"text:span", "text:a", "text:meta"};
  d.space = "text:s";
  d.space_count = "text:c";
  d.collapse_space = true;
  const auto code = [code_styles](const char* style) { return code_style(style) || code_styles->count(style) > 0; };
  d.wrapper_left_alone = [code](const pugi::xml_node& n) { return code(n.attribute("text:style-name").value()); };
  d.paragraph_left_alone = [code](const pugi::xml_node& p) { return code(p.attribute("text:style-name").value()); };
  return d;
}

ParagraphDialect make_title() {
  ParagraphDialect d;
  d.paragraphs = {"dc:title"};
  return d;
}

}  // namespace

bool code_style(const std::string& style) {
  std::string s = style;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* code : {"code", "verbatim", "source_20_text", "source_text", "preformatted", "teletype"}) {
    if (s.find(code) != std::string::npos) return true;
  }
  return false;
}

const ParagraphDialect& wordprocessing_dialect() {
  static const ParagraphDialect d = make_wordprocessing();
  return d;
}
const ParagraphDialect& drawing_dialect() {
  static const ParagraphDialect d = make_drawing();
  return d;
}
ParagraphDialect opendocument_dialect(const pugi::xml_document& part) {
  auto code = std::make_shared<std::set<std::string>>();
  for (const auto& style : part.select_nodes("//style:style")) {
    const pugi::xml_node s = style.node();
    if (code_style(s.attribute("style:parent-style-name").value())) code->insert(s.attribute("style:name").value());
  }
  return make_opendocument(std::move(code));
}
const ParagraphDialect& title_dialect() {
  static const ParagraphDialect d = make_title();
  return d;
}

}  // namespace nmt::document
