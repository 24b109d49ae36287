// sacreBLEU's default BLEU tokenizer ('13a', the mteval-v13a.pl normalisation)
// and the few Unicode facts BLEU and chrF share with Python's str methods.
//
// sacreBLEU runs on Python str: its split()/rstrip() drop every code point
// for which str.isspace() holds, not only ASCII blanks. Matching its numbers on
// non-ASCII text needs the same whitespace set, so it lives here once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::eval {

// Tokenizes one line exactly as sacrebleu's Tokenizer13a: drops "<skipped>",
// joins "-\n" line breaks, turns other newlines into spaces, unescapes
// &quot; &amp; &lt; &gt;, splits punctuation, splits '.' and ',' unless they sit
// between digits, splits '-' after a digit, then collapses whitespace.
// Works on UTF-8 bytes; no character outside ASCII is ever split off.
std::string tokenize_13a(const std::string& line);

// True for the code points Python's str.isspace() accepts.
bool is_unicode_space(char32_t cp);

// Decodes the UTF-8 character starting at s[pos] into *cp and returns its
// length in bytes (>= 1). A malformed byte counts as one character U+FFFD, so
// scoring never fails on bad input (validating it is the reader's job).
std::size_t decode_utf8(std::string_view s, std::size_t pos, char32_t* cp);

// Python's str.split() with no argument: pieces between runs of whitespace.
// The views point into `s`.
std::vector<std::string_view> split_unicode_whitespace(std::string_view s);

// Python's str.rstrip() with no argument.
std::string_view rstrip_unicode_whitespace(std::string_view s);

}  // namespace nmt::eval
