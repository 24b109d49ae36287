#include "memory/glossary.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "text/utf8.h"
#include "util/atomic_file.h"
#include "memory/xml_line.h"
#include "util/error.h"
#include "util/language_code.h"

namespace nmt::memory {
namespace {

const char* const kUnnamedSource = "\x01source";
const char* const kUnnamedTarget = "\x02target";

struct CodePoint {
  int32_t value = 0;
  size_t begin = 0, end = 0;  // its bytes
};

std::vector<CodePoint> code_points(std::string_view text) {
  std::vector<CodePoint> out;
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const auto n = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < n;) {
    const int32_t begin = i;
    UChar32 c = 0;
    U8_NEXT(s, i, n, c);
    out.push_back({c < 0 ? 0xFFFD : c, static_cast<size_t>(begin), static_cast<size_t>(i)});
  }
  return out;
}

int32_t folded(int32_t c) { return u_foldCase(c, U_FOLD_CASE_DEFAULT); }
bool is_word(int32_t c) { return u_isalnum(c) || u_getIntPropertyValue(c, UCHAR_GENERAL_CATEGORY_MASK) & U_GC_M_MASK; }

bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

std::string trimmed(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// A language code in any case ("en", "DE", "pt-BR"): util's test on its lower-case form.
bool is_language_code(std::string cell) {
  for (auto& c : cell) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return nmt::is_language_code(cell);
}

// A first line of two or more different language codes ("en<TAB>de").
bool is_header(const std::vector<std::string>& cells) {
  if (cells.size() < 2 || !std::all_of(cells.begin(), cells.end(), is_language_code)) return false;
  std::vector<std::string> primary;
  for (const auto& c : cells) primary.push_back(primary_language(c));
  std::sort(primary.begin(), primary.end());
  return std::adjacent_find(primary.begin(), primary.end()) == primary.end();
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, '\t');) cells.push_back(trimmed(cell));
  if (!line.empty() && line.back() == '\t') cells.emplace_back();
  return cells;
}

TermBase read_tsv(const std::string& path, const std::string& bytes, const std::string& source,
                  const std::string& target) {
  TermBase base{path, {}, true};
  std::vector<std::string> languages;
  std::stringstream in(bytes);
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (blank(line) || line[0] == '#') continue;
    const std::string where = path + " line " + std::to_string(number);
    if (text::find_invalid_utf8(line) != line.size()) throw DataError(where + " is not valid UTF-8 text.");
    auto cells = cells_of(line);
    if (languages.empty() && base.concepts.empty() && is_header(cells)) {
      for (const auto& c : cells) languages.push_back(primary_language(c));
      continue;
    }
    if (languages.empty()) {
      base.names_languages = !source.empty() && !target.empty();
      // Without a pair, stand-ins that keep the source first (glossary_for_pair names them).
      languages = base.names_languages ? std::vector<std::string>{primary_language(source), primary_language(target)}
                                       : std::vector<std::string>{kUnnamedSource, kUnnamedTarget};
    }
    if (cells.size() != languages.size()) {
      throw DataError(where + " has " + std::to_string(cells.size()) + " cells separated by tabs; expected " +
                      std::to_string(languages.size()) + " (" +
                      (languages.size() == 2 ? std::string("a source term, a tab, its target term") : "one per language of the header") +
                      ").");
    }
    std::map<std::string, std::vector<std::string>> concept_terms;
    for (size_t k = 0; k < cells.size(); ++k) {
      if (!cells[k].empty()) concept_terms[languages[k]].push_back(cells[k]);
    }
    if (concept_terms.size() < 2 && languages.size() == 2) throw DataError(where + " has an empty term.");
    base.concepts.push_back(std::move(concept_terms));
  }
  if (languages.empty()) base.names_languages = !source.empty() && !target.empty();
  return base;
}

bool named(const pugi::xml_node& n, const char* name) {
  const std::string full = n.name();
  const auto colon = full.find(':');
  return (colon == std::string::npos ? full : full.substr(colon + 1)) == name;
}

void collect_terms(const pugi::xml_node& node, std::vector<std::string>& out) {
  for (const auto& child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    if (named(child, "term")) {
      std::string text;
      for (const pugi::xpath_node& t : child.select_nodes(".//text()")) text += t.node().value();
      text = trimmed(text);
      if (!text.empty()) out.push_back(text);
    } else {
      collect_terms(child, out);
    }
  }
}

void collect_concepts(const pugi::xml_node& node, TermBase& base) {
  for (const auto& child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    if (!named(child, "termEntry") && !named(child, "conceptEntry")) {
      collect_concepts(child, base);
      continue;
    }
    std::map<std::string, std::vector<std::string>> concept_terms;
    for (const auto& lang : child.children()) {
      if (!named(lang, "langSet") && !named(lang, "langSec")) continue;
      const std::string code = primary_language(lang.attribute("xml:lang").value());
      if (code.empty()) continue;
      collect_terms(lang, concept_terms[code]);
    }
    base.concepts.push_back(std::move(concept_terms));
  }
}

TermBase read_tbx(const std::string& path, const std::string& xml) {
  pugi::xml_document doc;
  const auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_ws_pcdata);
  if (!parsed) {
    throw DataError(path + " line " + std::to_string(xml_line(xml, parsed.offset)) + " is not well-formed XML (" +
                    parsed.description() + ").");
  }
  const auto root = doc.document_element();
  if (!named(root, "martif") && !named(root, "tbx")) {
    throw DataError(path + ": not TBX (its root element is <" + std::string(root.name()) + ">, not <martif> or <tbx>).");
  }
  TermBase base{path, {}, true};
  collect_concepts(root, base);
  return base;
}

// Each source term of a concept holding both keys, to the concept's preferred target term.
Glossary terms_between(const TermBase& base, const std::string& source_key, const std::string& target_key) {
  Glossary out;
  for (const auto& c : base.concepts) {
    const auto from = c.find(source_key), to = c.find(target_key);
    if (from == c.end() || to == c.end() || to->second.empty()) continue;
    for (const auto& term : from->second) out.add(term, to->second.front());
  }
  return out;
}

}  // namespace

void Glossary::add(const std::string& source, const std::string& target) {
  if (blank(source) || blank(target)) {
    throw DataError("A glossary term needs a source and a target (got \"" + source + "\" -> \"" + target + "\").");
  }
  Pattern p;
  const auto points = code_points(source);
  p.any_case = std::none_of(points.begin(), points.end(), [](const CodePoint& c) { return u_isupper(c.value) || u_istitle(c.value); });
  for (const auto& c : points) p.code_points.push_back(p.any_case ? folded(c.value) : c.value);
  if (const auto same = by_source_.find(source); same != by_source_.end()) {
    terms_[same->second].target = target;
    return;
  }
  by_source_.emplace(source, terms_.size());
  terms_.push_back({source, target});
  patterns_.push_back(std::move(p));
  size_t node = 0;
  for (int32_t c : patterns_.back().code_points) {
    const int32_t key = folded(c);
    auto it = trie_[node].next.find(key);
    if (it == trie_[node].next.end()) {
      it = trie_[node].next.emplace(key, trie_.size()).first;
      trie_.emplace_back();
    }
    node = it->second;
  }
  trie_[node].terms.push_back(terms_.size() - 1);
}

Glossary Glossary::merged_with(const Glossary& over) const {
  Glossary out = *this;
  for (const auto& t : over.terms()) out.add(t.source, t.target);
  return out;
}

std::vector<TermMatch> Glossary::find(std::string_view text) const {
  std::vector<TermMatch> out;
  if (terms_.empty()) return out;
  const auto points = code_points(text);
  const auto written_so = [&](size_t t, size_t i) {  // a term matching only as written
    const Pattern& p = patterns_[t];
    if (p.any_case) return true;
    for (size_t k = 0; k < p.code_points.size(); ++k) {
      if (points[i + k].value != p.code_points[k]) return false;
    }
    return true;
  };
  for (size_t i = 0; i < points.size();) {
    const bool word_start = i == 0 || !is_word(points[i - 1].value) || !is_word(points[i].value);
    size_t matched = 0, term = 0;
    // The longest term from here that ends at a word's edge.
    for (size_t node = 0, k = i; word_start && k < points.size();) {
      const auto it = trie_[node].next.find(folded(points[k].value));
      if (it == trie_[node].next.end()) break;
      node = it->second;
      ++k;
      const bool word_end = k == points.size() || !is_word(points[k].value) || !is_word(points[k - 1].value);
      if (!word_end) continue;
      for (size_t t : trie_[node].terms) {
        if (written_so(t, i)) matched = k - i, term = t;
      }
    }
    if (matched) out.push_back({{points[i].begin, points[i + matched - 1].end}, term});
    i += matched ? matched : 1;
  }
  return out;
}

Glossary TermBase::glossary(const std::string& source_language, const std::string& target_language) const {
  return terms_between(*this, primary_language(source_language), primary_language(target_language));
}

TermBase read_term_base(const std::string& path, const std::string& source_language,
                        const std::string& target_language) {
  std::string bytes;
  try {
    bytes = read_file_bytes(path);
  } catch (const std::exception&) {
    throw DataError("Cannot read the glossary " + path + ".");
  }
  return parse_term_base(bytes, path, source_language, target_language);
}

TermBase parse_term_base(const std::string& bytes, const std::string& name, const std::string& source_language,
                         const std::string& target_language) {
  const auto first = bytes.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (first != std::string::npos && bytes[first] == '<') return read_tbx(name, bytes);
  return read_tsv(name, bytes, source_language, target_language);
}

GlossarySource parse_glossary_source(const std::string& argument) {
  const auto equals = argument.find('=');
  if (equals != std::string::npos) {
    const std::string pair = argument.substr(0, equals);
    const auto dash = pair.find('-');
    if (dash != std::string::npos && is_language_code(pair.substr(0, dash)) && is_language_code(pair.substr(dash + 1))) {
      return {argument.substr(equals + 1), primary_language(pair.substr(0, dash)), primary_language(pair.substr(dash + 1))};
    }
  }
  return {argument, "", ""};
}

std::vector<TermBase> read_glossaries(const std::vector<std::string>& arguments) {
  std::vector<TermBase> out;
  for (const auto& argument : arguments) {
    const auto source = parse_glossary_source(argument);
    out.push_back(read_term_base(source.path, source.source_language, source.target_language));
  }
  return out;
}

Glossary pair_glossary(const TermBase& base, const std::string& source_language, const std::string& target_language,
                       bool only_pair) {
  if (base.names_languages) return base.glossary(source_language, target_language);
  if (!only_pair) {
    throw DataError("The glossary " + base.path + " names no language pair, and several pairs are served: " +
                    "start it with a line of its two language codes (\"en<TAB>de\"), or give it as " +
                    "--glossary SRC-TGT=" + base.path + ".");
  }
  return terms_between(base, kUnnamedSource, kUnnamedTarget);
}

std::shared_ptr<const Glossary> glossary_for_pair(const std::vector<TermBase>& bases, const std::string& source_language,
                                                  const std::string& target_language, bool only_pair) {
  Glossary merged;
  for (const auto& base : bases) merged = merged.merged_with(pair_glossary(base, source_language, target_language, only_pair));
  if (merged.empty()) return nullptr;
  return std::make_shared<const Glossary>(std::move(merged));
}

}  // namespace nmt::memory
