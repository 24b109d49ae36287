// The tokenization behind the "tokenized BLEU" of most papers: Moses's
// tokenizer.perl (default settings: no aggressive hyphen splitting; without
// its XML escaping, which maps tokens one to one and so leaves BLEU as is),
// written from its documented rules:
//   - runs of whitespace become one space; control characters go;
//   - every character that is not a letter, digit, space, '.', ''', '`',
//     ',' or '-' stands alone;
//   - runs of two or more dots stand alone as one token;
//   - ',' stands alone unless between digits on both sides;
//   - apostrophes by language: English splits before them ("don't" ->
//     "don 't", "1990's" -> "1990 's"), French and Italian after them
//     ("l'homme" -> "l' homme"), other languages on both sides; an apostrophe
//     not inside a word stands alone everywhere;
//   - a word's final '.' stands alone unless the word has another '.' and a
//     letter (U.S.A.), is a known abbreviation of the language (Mr., Dr.,
//     single capitals; "No." before a number), or the next word starts in
//     lower case.
#pragma once

#include <string>

namespace nmt::eval {

// Tokens of one line separated by single spaces. `language`: an ISO 639-1
// code such as "en", "de" or "fr" ("" or unknown: the rules shared by all).
std::string moses_tokenize(const std::string& line, const std::string& language);

}  // namespace nmt::eval
