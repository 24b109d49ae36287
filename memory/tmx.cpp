#include "memory/tmx.h"

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "memory/xml_line.h"
#include "util/error.h"
#include "util/language_code.h"

namespace nmt::memory {
namespace {

// "20261202T081200Z" for seconds since the epoch (UTC), and back (0 for another form).
std::string tmx_date(double seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y%m%dT%H%M%SZ", &tm);
  return out;
}

double parse_tmx_date(const std::string& s) {
  std::tm tm{};
  if (s.size() != 16 || std::sscanf(s.c_str(), "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                                    &tm.tm_min, &tm.tm_sec) != 6) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

std::string language_of(const pugi::xml_node& tuv) {
  const char* lang = tuv.attribute("xml:lang").value();
  return primary_language(*lang ? lang : tuv.attribute("lang").value());  // TMX 1.1's attribute
}

// All the text under `seg`, inline codes' too.
std::string text_of(const pugi::xml_node& seg) {
  std::string out;
  for (const pugi::xpath_node& n : seg.select_nodes(".//text()")) out += n.node().value();
  return out;
}

std::string escape_tsv(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string write_tmx(const std::vector<Suggestion>& suggestions) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto tmx = doc.append_child("tmx");
  tmx.append_attribute("version") = "1.4";
  std::string srclang = suggestions.empty() ? "*all*" : suggestions.front().source_lang;
  for (const auto& s : suggestions) {
    if (s.source_lang != srclang) srclang = "*all*";
  }
  auto header = tmx.append_child("header");
  for (const auto& [k, v] : std::vector<std::pair<const char*, std::string>>{
           {"creationtool", "nmt translator"}, {"creationtoolversion", "1"}, {"segtype", "sentence"},
           {"o-tmf", "nmt suggestions"}, {"adminlang", "en"}, {"srclang", srclang}, {"datatype", "plaintext"}}) {
    header.append_attribute(k) = v.c_str();
  }
  auto body = tmx.append_child("body");
  for (const auto& s : suggestions) {
    auto tu = body.append_child("tu");
    tu.append_attribute("creationdate") = tmx_date(s.time).c_str();
    auto prop = tu.append_child("prop");
    prop.append_attribute("type") = "x-status";
    prop.text() = status_name(s.status).c_str();
    for (const auto& [lang, text] : {std::pair{&s.source_lang, &s.source}, std::pair{&s.target_lang, &s.suggestion}}) {
      auto tuv = tu.append_child("tuv");
      tuv.append_attribute("xml:lang") = lang->c_str();
      tuv.append_child("seg").text() = text->c_str();
    }
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent, pugi::encoding_utf8);
  return out.str();
}

std::vector<Suggestion> read_tmx(const std::string& xml, const std::string& name, SuggestionStatus status) {
  pugi::xml_document doc;
  const auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_ws_pcdata | pugi::parse_doctype,
                                      pugi::encoding_utf8);
  if (!parsed) {
    throw DataError(name + " line " + std::to_string(xml_line(xml, parsed.offset)) + ": not well-formed XML (" +
                    parsed.description() + ").");
  }
  for (auto c = doc.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_doctype) throw DataError(name + ": a DOCTYPE is refused (entities are not expanded).");
  }
  const auto tmx = doc.child("tmx");
  if (!tmx) throw DataError(name + ": not TMX (no <tmx> element).");
  const std::string srclang = primary_language(tmx.child("header").attribute("srclang").value());
  std::vector<Suggestion> out;
  for (const auto& tu : tmx.child("body").children("tu")) {
    const std::string where = name + " line " + std::to_string(xml_line(xml, tu.offset_debug()));
    std::vector<pugi::xml_node> tuvs(tu.children("tuv").begin(), tu.children("tuv").end());
    if (tuvs.size() < 2) throw DataError(where + ": a <tu> needs two <tuv>s (a source and a translation).");
    auto source = std::find_if(tuvs.begin(), tuvs.end(), [&](const auto& v) { return language_of(v) == srclang; });
    if (srclang.empty() || srclang == "*all*" || source == tuvs.end()) source = tuvs.begin();
    Suggestion base;
    base.status = status;
    if (const auto s = parse_status(tu.find_child_by_attribute("prop", "type", "x-status").text().get())) base.status = *s;
    base.time = parse_tmx_date(tu.attribute("creationdate").value());
    base.source_lang = language_of(*source);
    if (base.source_lang.empty()) throw DataError(where + ": a <tuv> has no xml:lang.");
    if (!source->child("seg")) throw DataError(where + ": a <tuv> has no <seg>.");
    base.source = text_of(source->child("seg"));
    for (const auto& tuv : tuvs) {
      if (tuv == *source) continue;
      if (!tuv.child("seg")) throw DataError(where + ": a <tuv> has no <seg>.");
      Suggestion s = base;
      s.target_lang = language_of(tuv);
      if (s.target_lang.empty()) throw DataError(where + ": a <tuv> has no xml:lang.");
      s.suggestion = text_of(tuv.child("seg"));
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::string write_tsv(const std::vector<Suggestion>& suggestions) {
  std::string out = "source_lang\ttarget_lang\tsource\tsuggestion\tstatus\n";
  for (const auto& s : suggestions) {
    out += s.source_lang + "\t" + s.target_lang + "\t" + escape_tsv(s.source) + "\t" + escape_tsv(s.suggestion) + "\t" +
           status_name(s.status) + "\n";
  }
  return out;
}

}  // namespace nmt::memory
