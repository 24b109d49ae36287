#include "eval/tokenizer_13a.h"

namespace nmt::eval {
namespace {

// Python's str.replace: non-overlapping, left to right.
std::string replace_all(const std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t start = 0;
  for (std::size_t hit = s.find(from); hit != std::string::npos; hit = s.find(from, start)) {
    out.append(s, start, hit - start);
    out.append(to);
    start = hit + from.size();
  }
  out.append(s, start, std::string::npos);
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// The class [\{-\~\[-\` -\&\(-\+\:-\@\/] of the first 13a rule: ASCII
// punctuation except ' - . , (apostrophes, hyphens and numbers stay intact).
bool is_split_punct(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// The three two-character rules are Python re.sub passes: a match consumes
// both characters and scanning resumes after them, so "a,,1" splits only the
// first comma. Byte-level scanning gives the same result as Python's
// code-point scanning because every character tested is ASCII and UTF-8
// continuation bytes are never digits, periods, commas or hyphens.
enum class PairRule { kSplitAfterNonDigit, kSplitBeforeNonDigit, kDashAfterDigit };

bool pair_matches(PairRule rule, char a, char b) {
  switch (rule) {
    case PairRule::kSplitAfterNonDigit: return !is_digit(a) && is_period_or_comma(b);
    case PairRule::kSplitBeforeNonDigit: return is_period_or_comma(a) && !is_digit(b);
    case PairRule::kDashAfterDigit: return is_digit(a) && b == '-';
  }
  return false;
}

std::string apply_pair_rule(const std::string& s, PairRule rule) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && pair_matches(rule, s[i], s[i + 1])) {
      if (rule == PairRule::kSplitBeforeNonDigit) {  // ' \1 \2'
        out += ' ';
        out += s[i];
        out += ' ';
        out += s[i + 1];
      } else {  // '\1 \2 '
        out += s[i];
        out += ' ';
        out += s[i + 1];
        out += ' ';
      }
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

bool is_unicode_space(char32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  switch (cp) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

std::size_t decode_utf8(std::string_view s, std::size_t pos, char32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  std::size_t len = 0;
  char32_t value = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, value = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, value = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, value = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // beyond U+10FFFF
  }
  bool ok = len != 0 && pos + len <= s.size();
  for (std::size_t k = 1; ok && k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[pos + k]);
    ok = k == 1 ? (b >= lo && b <= hi) : is_continuation(b);
    value = (value << 6) | (b & 0x3F);
  }
  if (!ok) {
    *cp = 0xFFFD;
    return 1;
  }
  *cp = value;
  return len;
}

std::vector<std::string_view> split_unicode_whitespace(std::string_view s) {
  std::vector<std::string_view> pieces;
  std::size_t start = std::string_view::npos;
  std::size_t pos = 0;
  while (pos < s.size()) {
    char32_t cp;
    const std::size_t len = decode_utf8(s, pos, &cp);
    if (is_unicode_space(cp)) {
      if (start != std::string_view::npos) pieces.push_back(s.substr(start, pos - start));
      start = std::string_view::npos;
    } else if (start == std::string_view::npos) {
      start = pos;
    }
    pos += len;
  }
  if (start != std::string_view::npos) pieces.push_back(s.substr(start));
  return pieces;
}

std::string_view rstrip_unicode_whitespace(std::string_view s) {
  // Decoding forwards keeps malformed bytes from being misread as spaces.
  std::size_t keep = 0;
  std::size_t pos = 0;
  while (pos < s.size()) {
    char32_t cp;
    pos += decode_utf8(s, pos, &cp);
    if (!is_unicode_space(cp)) keep = pos;
  }
  return s.substr(0, keep);
}

std::string tokenize_13a(const std::string& line) {
  // Language-independent part, in sacreBLEU's order (the order matters:
  // "&amp;quot;" becomes "&quot;", not '"').
  std::string s = replace_all(line, "<skipped>", "");
  s = replace_all(s, "-\n", "");
  s = replace_all(s, "\n", " ");
  s = replace_all(s, "&quot;", "\"");
  s = replace_all(s, "&amp;", "&");
  s = replace_all(s, "&lt;", "<");
  s = replace_all(s, "&gt;", ">");

  // Padding gives the pair rules a left/right neighbour at the line ends.
  std::string padded;
  padded.reserve(s.size() * 2 + 2);
  padded += ' ';
  for (char c : s) {
    if (is_split_punct(c)) {
      padded += ' ';
      padded += c;
      padded += ' ';
    } else {
      padded += c;
    }
  }
  padded += ' ';

  padded = apply_pair_rule(padded, PairRule::kSplitAfterNonDigit);
  padded = apply_pair_rule(padded, PairRule::kSplitBeforeNonDigit);
  padded = apply_pair_rule(padded, PairRule::kDashAfterDigit);

  std::string out;
  out.reserve(padded.size());
  for (std::string_view piece : split_unicode_whitespace(padded)) {
    if (!out.empty()) out += ' ';
    out.append(piece);
  }
  return out;
}

}  // namespace nmt::eval
