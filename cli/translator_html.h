// translator --format html: each line of standard input (or each TEXT
// argument) an HTML fragment, or --input FILE one whole HTML document;
// translated with decode::HtmlTranslator, markup kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/translator_output.h"
#include "decode/translation.h"

namespace nmt::cli {

struct HtmlInput {
  std::vector<std::string> texts;  // TEXT arguments, each a fragment
  std::string file;                // --input: one document
  std::string name;                // for messages: "the command line", the file, "standard input"
  bool interactive = false;        // a terminal: answer line by line
  std::optional<int64_t> alignment_layer;  // --attention-layer when given
};

// Writes the translations to `out`; prints the summary (and invalid lines)
// on standard error. Returns the exit code.
int translate_html(decode::Translator& translator, const HtmlInput& input, TranslationOutput& out);

}  // namespace nmt::cli
