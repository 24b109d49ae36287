// translator --score-targets FILE: line i of FILE scored as the translation
// of input line i, token by token, instead of searching for one.
#pragma once

#include <string>
#include <vector>

#include "cli/translator_output.h"
#include "decode/translation.h"

namespace nmt::cli {

// Writes one line per pair to out: "TOTAL ||| LP1 ... LPn", each target
// token's log-probability, the end token's last, TOTAL their sum. A FILE
// with another number of lines than `sources` is a DataError naming it.
// Every line of `in` (a final carriage return removed).
std::vector<std::string> lines_of(std::istream& in);

int score_target_file(decode::Translator& translator, const std::vector<std::string>& sources,
                      const std::string& targets_path, TranslationOutput& out);

}  // namespace nmt::cli
