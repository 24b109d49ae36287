#include "text/placeholders.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

namespace nmt::text {
namespace {

constexpr size_t kMaxBraced = 64;  // a longer "{...}" is text, not a placeholder
constexpr size_t kMaxTag = 200;

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// printf's %[n$][flags][width][.precision][length]conversion, Python's
// %(name)s, and %%; the end of the placeholder at `i` (text[i] == '%'), or 0.
size_t printf_end(std::string_view t, size_t i) {
  size_t j = i + 1;
  if (j < t.size() && t[j] == '%') return j + 1;
  if (j < t.size() && t[j] == '(') {
    const size_t close = t.find(')', j);
    if (close == std::string_view::npos || close - j > kMaxBraced) return 0;
    for (size_t k = j + 1; k < close; ++k) {
      if (!alnum(t[k]) && t[k] != '_') return 0;
    }
    j = close + 1;
  } else {
    size_t k = j;
    while (k < t.size() && digit(t[k])) ++k;
    if (k > j && k < t.size() && t[k] == '$') j = k + 1;  // a position: %1$s
  }
  while (j < t.size() && std::strchr("-+#0'", t[j]) != nullptr && t[j] != '\0') ++j;  // no ' ': "50 % discount"
  if (j < t.size() && t[j] == '*') {
    ++j;
  } else {
    while (j < t.size() && digit(t[j])) ++j;
  }
  if (j < t.size() && t[j] == '.') {
    ++j;
    if (j < t.size() && t[j] == '*') {
      ++j;
    } else {
      while (j < t.size() && digit(t[j])) ++j;
    }
  }
  for (const char* length : {"hh", "ll", "h", "l", "L", "z", "j", "t", "q"}) {
    if (t.substr(j, std::strlen(length)) == length) {
      j += std::strlen(length);
      break;
    }
  }
  if (j < t.size() && std::strchr("diouxXeEfFgGaAcspn@", t[j]) != nullptr && t[j] != '\0') return j + 1;
  return 0;
}

// {0} {name} {0:N2} {} and {{ anything }}; ${name}: from the '$'. 0 if none at `i`.
size_t brace_end(std::string_view t, size_t i) {
  if (t.substr(i, 2) == "{{") {
    const size_t close = t.find("}}", i + 2);
    if (close == std::string_view::npos || close - i > kMaxBraced) return 0;
    const std::string_view inner = t.substr(i + 2, close - i - 2);
    if (inner.find_first_of("{}\n") != std::string_view::npos) return 0;
    return close + 2;
  }
  const size_t close = t.find('}', i + 1);
  if (close == std::string_view::npos || close - i > kMaxBraced) return 0;
  for (size_t k = i + 1; k < close; ++k) {
    if (!alnum(t[k]) && std::strchr("_.:-!#@$,", t[k]) == nullptr) return 0;
  }
  return close + 1;
}

size_t colon_name_end(std::string_view t, size_t i) {
  if (i > 0 && (alnum(t[i - 1]) || t[i - 1] == ':')) return 0;  // 12:30, http:, ::
  size_t j = i + 1;
  if (j >= t.size() || !(alpha(t[j]) || t[j] == '_')) return 0;
  while (j < t.size() && (alnum(t[j]) || t[j] == '_')) ++j;
  return j;
}

bool starts_with_ci(std::string_view t, size_t i, std::string_view prefix) {
  if (t.size() - i < prefix.size()) return false;
  for (size_t k = 0; k < prefix.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(t[i + k])) != prefix[k]) return false;
  }
  return true;
}

// A URL from `i` to the first space, quote or angle bracket, without the
// sentence's punctuation after it (a closing bracket kept when it closes one in the URL).
size_t url_end(std::string_view t, size_t i) {
  bool www = false;
  if (!starts_with_ci(t, i, "http://") && !starts_with_ci(t, i, "https://") && !starts_with_ci(t, i, "ftp://") &&
      !starts_with_ci(t, i, "mailto:")) {
    if (!starts_with_ci(t, i, "www.") || (i > 0 && (alnum(t[i - 1]) || t[i - 1] == '.'))) return 0;
    www = true;
  }
  if (i > 0 && alnum(t[i - 1])) return 0;
  size_t j = i;
  while (j < t.size() && !space(t[j]) && std::strchr("<>\"", t[j]) == nullptr && t[j] != '\0') ++j;
  while (j > i) {
    const char last = t[j - 1];
    if (std::strchr(".,;:!?'", last) != nullptr) {
      --j;
    } else if (last == ')' || last == ']') {
      const char open = last == ')' ? '(' : '[';
      const auto span = t.substr(i, j - i);
      if (std::count(span.begin(), span.end(), open) >= std::count(span.begin(), span.end(), last)) break;
      --j;
    } else {
      break;
    }
  }
  const size_t min_size = www ? 5 : 9;  // "www.x", "http://x"
  return j - i >= min_size ? j : 0;
}

bool email_local(char c) { return alnum(c) || std::strchr("._%+-", c) != nullptr; }

// An e-mail address around the '@' at `at`: its span, or an empty one.
Span email_around(std::string_view t, size_t at) {
  size_t b = at;
  while (b > 0 && email_local(t[b - 1])) --b;
  while (b < at && t[b] == '.') ++b;
  size_t e = at + 1;
  while (e < t.size() && (alnum(t[e]) || t[e] == '.' || t[e] == '-')) ++e;
  while (e > at + 1 && (t[e - 1] == '.' || t[e - 1] == '-')) --e;
  const std::string_view domain = t.substr(at + 1, e - at - 1);
  const size_t dot = domain.rfind('.');
  if (b == at || dot == std::string_view::npos || dot == 0 || domain.size() - dot - 1 < 2) return {};
  for (size_t k = dot + 1; k < domain.size(); ++k) {
    if (!alpha(domain[k])) return {};
  }
  return {b, e};
}

// <b>, </b>, <x id="1"/>, <br/>: 0 if none at `i`.
size_t tag_end(std::string_view t, size_t i) {
  size_t j = i + 1;
  if (j < t.size() && t[j] == '/') ++j;
  if (j >= t.size() || !alpha(t[j])) return 0;
  while (j < t.size() && (alnum(t[j]) || t[j] == '-' || t[j] == ':' || t[j] == '_')) ++j;
  if (j >= t.size() || !(space(t[j]) || t[j] == '/' || t[j] == '>')) return 0;
  const size_t close = t.find_first_of("<>\n", j);
  if (close == std::string_view::npos || t[close] != '>' || close - i > kMaxTag) return 0;
  return close + 1;
}

// Quotes and brackets that take a placeholder directly inside them along.
constexpr std::pair<std::string_view, std::string_view> kEnclosing[] = {
    {"'", "'"}, {"\"", "\""}, {"(", ")"}, {"[", "]"}, {"`", "`"}, {"\xC2\xAB", "\xC2\xBB"},  // « »
    {"\xE2\x80\x9C", "\xE2\x80\x9D"},  // “ ”
    {"\xE2\x80\x98", "\xE2\x80\x99"},  // ‘ ’
    {"\xE2\x80\x9E", "\xE2\x80\x9C"},  // „ “
    {"\xC2\xBB", "\xC2\xAB"}};         // » «

void enclose(std::string_view t, std::vector<Span>& spans) {
  for (size_t s = 0; s < spans.size(); ++s) {
    const size_t floor = s == 0 ? 0 : spans[s - 1].end, ceiling = s + 1 < spans.size() ? spans[s + 1].begin : t.size();
    for (const auto& [open, close] : kEnclosing) {
      Span& sp = spans[s];
      if (sp.begin >= floor + open.size() && sp.end + close.size() <= ceiling &&
          t.substr(sp.begin - open.size(), open.size()) == open && t.substr(sp.end, close.size()) == close) {
        sp = {sp.begin - open.size(), sp.end + close.size()};
        break;
      }
    }
  }
}

void add_literals(std::string_view t, const std::vector<std::string>& literals, std::vector<Span>& found) {
  for (const auto& literal : literals) {
    if (literal.empty()) continue;
    for (size_t at = t.find(literal); at != std::string_view::npos; at = t.find(literal, at + literal.size())) {
      found.push_back({at, at + literal.size()});
    }
  }
}

}  // namespace

std::vector<Span> find_placeholders(const std::string& text, const PlaceholderOptions& options) {
  if (!options.enabled) return {};
  const std::string_view t = text;
  std::vector<Span> found;
  add_literals(t, options.literals, found);
  for (size_t i = 0; i < t.size(); ++i) {
    size_t end = 0;
    switch (t[i]) {
      case '%': end = printf_end(t, i); break;
      case '{': end = brace_end(t, i); break;
      case '$': end = i + 1 < t.size() && t[i + 1] == '{' ? brace_end(t, i + 1) : 0; break;
      case ':': end = options.colon_names ? colon_name_end(t, i) : 0; break;
      case '<': end = options.tags ? tag_end(t, i) : 0; break;
      case '@': {
        const Span e = email_around(t, i);
        if (!e.empty()) found.push_back(e);
        break;
      }
      default: end = url_end(t, i); break;
    }
    if (end > i) found.push_back({i, end});
  }
  std::sort(found.begin(), found.end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.size() > b.size();
  });
  std::vector<Span> kept;
  for (const Span& s : found) {
    if (kept.empty() || s.begin >= kept.back().end) kept.push_back(s);
  }
  enclose(t, kept);
  return kept;
}

}  // namespace nmt::text
