#include "eval/moses_tokenizer.h"

#include <set>
#include <vector>

#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace nmt::eval {
namespace {

using Text = std::u32string;

bool is_alpha(char32_t c) { return u_isUAlphabetic(static_cast<UChar32>(c)); }
bool is_number(char32_t c) {
  const int8_t type = u_charType(static_cast<UChar32>(c));
  return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
}
bool is_alnum(char32_t c) { return is_alpha(c) || u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER; }
bool is_space(char32_t c) { return u_isUWhiteSpace(static_cast<UChar32>(c)); }

// A dot of a run of several, kept out of the final-period rule until the end.
constexpr char32_t kRunDot = 0xE000;

Text decode(const std::string& utf8) {
  const icu::UnicodeString s = icu::UnicodeString::fromUTF8(utf8);
  Text out;
  for (int32_t i = 0; i < s.length(); i = s.moveIndex32(i, 1)) out += static_cast<char32_t>(s.char32At(i));
  return out;
}

std::string encode(const Text& text) {
  std::string out;
  icu::UnicodeString::fromUTF32(reinterpret_cast<const UChar32*>(text.data()), static_cast<int32_t>(text.size()))
      .toUTF8String(out);
  return out;
}

// Perl's s/(X)(Y)(Z)/.../g for a pattern of `width` single characters: left
// to right, each match consumed whole before looking again.
template <typename Match, typename Emit>
Text substitute(const Text& t, size_t width, Match match, Emit emit) {
  Text out;
  size_t i = 0;
  while (i < t.size()) {
    if (i + width <= t.size() && match(&t[i])) {
      emit(&t[i], out);
      i += width;
    } else {
      out += t[i++];
    }
  }
  return out;
}

// " a " around every character of the kind, as Perl's s/(...)/ $1 /g.
template <typename Pred>
Text stand_alone(const Text& t, Pred pred) {
  Text out;
  for (char32_t c : t) {
    if (pred(c)) {
      out += U' ';
      out += c;
      out += U' ';
    } else {
      out += c;
    }
  }
  return out;
}

Text split_commas(Text t) {
  t = substitute(t, 2, [](const char32_t* p) { return !is_number(p[0]) && p[1] == U','; },
                 [](const char32_t* p, Text& o) { o += p[0], o += U" , "; });
  return substitute(t, 2, [](const char32_t* p) { return p[0] == U',' && !is_number(p[1]); },
                    [](const char32_t* p, Text& o) { o += U" , ", o += p[1]; });
}

// An apostrophe between characters of the kinds given: `spaced` puts spaces
// around it; otherwise `glue_left`/`glue_right` say on which side it stays.
template <typename Left, typename Right>
Text apostrophes(const Text& t, Left left, Right right, bool glue_left, bool glue_right) {
  return substitute(t, 3, [&](const char32_t* p) { return left(p[0]) && p[1] == U'\'' && right(p[2]); },
                    [&](const char32_t* p, Text& o) {
                      o += p[0];
                      if (!glue_left) o += U' ';
                      o += U'\'';
                      if (!glue_right) o += U' ';
                      o += p[2];
                    });
}

Text split_apostrophes(Text t, const std::string& language) {
  const auto alpha = [](char32_t c) { return is_alpha(c); };
  const auto not_alpha = [](char32_t c) { return !is_alpha(c); };
  if (language == "en") {
    t = apostrophes(t, not_alpha, not_alpha, false, false);
    t = apostrophes(t, [](char32_t c) { return !is_alpha(c) && !is_number(c); }, alpha, false, false);
    t = apostrophes(t, alpha, not_alpha, false, false);
    t = apostrophes(t, alpha, alpha, false, true);                                  // don't -> don 't
    return apostrophes(t, [](char32_t c) { return is_number(c); }, [](char32_t c) { return c == U's'; }, false,
                       true);                                                        // 1990's -> 1990 's
  }
  if (language == "fr" || language == "it") {
    t = apostrophes(t, not_alpha, not_alpha, false, false);
    t = apostrophes(t, not_alpha, alpha, false, false);
    t = apostrophes(t, alpha, not_alpha, false, false);
    return apostrophes(t, alpha, alpha, true, false);  // l'homme -> l' homme
  }
  return stand_alone(t, [](char32_t c) { return c == U'\''; });
}

// Words whose final '.' is an abbreviation's (1), or one only before a
// number (2), from Moses's nonbreaking-prefix lists (the common part of the
// English, German and French ones, and single letters).
int abbreviation_kind(const Text& word) {
  static const std::set<std::string> always = {
      "Adj",  "Adm",  "Adv",  "Asst", "Bart", "Bldg", "Brig", "Bros", "Capt", "Cmdr", "Col",  "Comdr", "Con",
      "Corp", "Cpl",  "DR",   "Dr",   "Drs",  "Ens",  "Gen",  "Gov",  "Hon",  "Hr",   "Hosp", "Insp",  "Lt",
      "MM",   "MR",   "MRS",  "MS",   "Maj",  "Messrs", "Mlle", "Mme", "Mr",  "Mrs",  "Ms",   "Msgr",  "Op",
      "Ord",  "Pfc",  "Ph",   "Prof", "Pvt",  "Rep",  "Reps", "Res",  "Rev",  "Rt",   "Sen",  "Sens",  "Sfc",
      "Sgt",  "Sr",   "St",   "Supt", "Surg", "v",    "vs",   "i.e",  "rev",  "e.g",  "Jan",  "Feb",   "Mar",
      "Apr",  "Jun",  "Jul",  "Aug",  "Sep",  "Sept", "Oct",  "Nov",  "Dec",  "bzw",  "ca",   "usw",   "Fr",
      "Hrn",  "Str",  "Mio",  "Mrd",  "etc",  "M",    "Mme"};
  static const std::set<std::string> before_numbers = {"No", "Nos", "Art", "Nr", "pp"};
  if (word.size() == 1 && is_alpha(word[0]) && u_isUUppercase(static_cast<UChar32>(word[0]))) return 1;
  const std::string w = encode(word);
  if (always.count(w)) return 1;
  return before_numbers.count(w) ? 2 : 0;
}

// The final '.' of each word that ends a sentence, standing alone.
Text split_final_periods(const Text& t) {
  std::vector<Text> words{Text()};
  for (char32_t c : t) {
    if (c == U' ') {
      words.emplace_back();
    } else {
      words.back() += c;
    }
  }
  Text out;
  for (size_t i = 0; i < words.size(); ++i) {
    Text word = words[i];
    if (word.size() >= 2 && word.back() == U'.') {
      const Text pre = word.substr(0, word.size() - 1);
      const Text next = i + 1 < words.size() ? words[i + 1] : Text();
      bool has_dot = false, has_alpha = false;
      for (char32_t c : pre) has_dot = has_dot || c == U'.', has_alpha = has_alpha || is_alpha(c);
      const int kind = abbreviation_kind(pre);
      const bool keep = (has_dot && has_alpha) || kind == 1 || (!next.empty() && u_isULowercase(next[0])) ||
                        (kind == 2 && !next.empty() && next[0] >= U'0' && next[0] <= U'9');
      if (!keep) word = pre + U" .";
    }
    if (i > 0) out += U' ';
    out += word;
  }
  return out;
}

Text collapse_spaces(const Text& t) {
  Text out;
  for (char32_t c : t) {
    if (c == U' ' && (out.empty() || out.back() == U' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == U' ') out.pop_back();
  return out;
}

}  // namespace

std::string moses_tokenize(const std::string& line, const std::string& language) {
  // Whitespace to single spaces, control characters dropped.
  Text t = U" ";
  for (char32_t c : decode(line)) {
    if (is_space(c)) {
      if (t.back() != U' ') t += U' ';
    } else if (c >= 32) {
      t += c;
    }
  }
  t += U' ';
  t = stand_alone(t, [](char32_t c) {
    return !is_alnum(c) && !is_space(c) && c != U'.' && c != U'\'' && c != U'`' && c != U',' && c != U'-';
  });
  // Runs of two or more dots: one token of their own.
  Text dotted;
  for (size_t i = 0; i < t.size();) {
    size_t j = i;
    while (j < t.size() && t[j] == U'.') ++j;
    if (j - i >= 2) {
      dotted += U' ' + Text(j - i, kRunDot) + U' ';
      i = j;
    } else {
      dotted += t[i++];
    }
  }
  t = split_apostrophes(split_commas(dotted), language);
  t = collapse_spaces(split_final_periods(t));
  // A sentence's final ".'" (the rule above saw "'" last).
  if (t.size() >= 2 && t.compare(t.size() - 2, 2, U".'") == 0) t = t.substr(0, t.size() - 2) + U" . '";
  for (char32_t& c : t) {
    if (c == kRunDot) c = U'.';
  }
  return encode(t);
}

}  // namespace nmt::eval
