// The LibreTranslate API (the one Weblate and other tools speak):
// POST /translate with q (a string or an array), source, target, format,
// alternatives and api_key, answered {"translatedText": ...} in q's shape;
// GET /languages.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/language_pair.h"
#include "serve/text_translation.h"

namespace nmt::serve {

struct LibreTranslateRequest {
  std::vector<std::string> texts;
  bool array = false;  // q was an array: the answer is one too
  std::string source, target, format = "text", api_key;
  int64_t alternatives = 0;  // extra hypotheses wanted per text
};

// From a JSON body or form fields gathered into an object of strings. A
// missing or ill-typed field, a pair the model does not translate,
// source "auto" or a format other than "text" and "html" is an HttpError 400
// saying so.
LibreTranslateRequest parse_libretranslate(const nlohmann::json& body, const data::LanguagePair& pair);

nlohmann::json libretranslate_response(const LibreTranslateRequest& request,
                                       const std::vector<TextTranslation>& translations);

// [{"code", "name", "targets"}] for both languages of the pair.
nlohmann::json libretranslate_languages(const data::LanguagePair& pair);

}  // namespace nmt::serve
