// The LibreTranslate API's shapes (the API Weblate, browser extensions and
// LibreTranslate's client libraries speak), without HTTP:
// POST /translate with q (a string or an array), source (a code or "auto"),
// target, format, alternatives and api_key, answered {"translatedText": ...}
// in q's shape (with "detectedLanguage" for "auto"); GET /languages;
// POST /detect; GET /frontend/settings.
#pragma once

#include <nlohmann/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "serve/route_table.h"
#include "serve/text_translation.h"
#include "text/language_detector.h"

namespace nmt::serve {

struct LibreTranslateRequest {
  std::vector<std::string> texts;
  bool array = false;  // q was an array: the answer is one too
  std::string source, target, format = "text", api_key;
  int64_t alternatives = 0;  // extra hypotheses wanted per text
  bool alignment = false;    // ours, off by default: word links for the page (text format, direct pairs)
  std::vector<std::string> keep_verbatim;  // ours: strings kept untranslated, beside the placeholders found
  std::shared_ptr<const memory::Glossary> glossary;  // ours: terms to meet, over the server's (null: none)
  bool html() const { return format == "html"; }
};

// A string field of a request: "" when absent or null (an HttpError 400 when
// `required`), an HttpError 400 when of another type.
std::string string_field(const nlohmann::json& body, const char* key, bool required);

// From a JSON body or form fields gathered into an object of strings. A
// missing or ill-typed field is an HttpError 400 in LibreTranslate's words;
// which pairs and formats exist is the service's to check, after the
// languages, as LibreTranslate does.
LibreTranslateRequest parse_libretranslate(const nlohmann::json& body);

// `detected`: per text, the language found for source "auto" (empty otherwise).
// With request.alignment, "alignment" holds per text (in q's shape) its word
// links as [target_begin, target_end, source_begin, source_end] in UTF-16
// code units; [] where there are none (HTML, a pivoted pair, a request of
// more than 8 KiB of text). Where a glossary term is missing from a
// translation, "unmetTerms" holds per text (in q's shape) each such term as
// {"source", "target", "reason"}.
nlohmann::json libretranslate_response(const LibreTranslateRequest& request,
                                       const std::vector<TextTranslation>& translations,
                                       const std::vector<text::DetectedLanguage>& detected = {});

// [{"code", "name", "targets"}]: every language the server translates from or
// to, each with every language reachable from it (directly or through a pivot).
nlohmann::json libretranslate_languages(const RouteTable& routes);

// POST /detect's answer: [{"confidence", "language"}], best first.
nlohmann::json libretranslate_detections(const std::vector<text::DetectedLanguage>& detected);

// What GET /frontend/settings reports (LibreTranslate's page reads it first).
struct FrontendSettings {
  int64_t char_limit = -1;
  bool api_keys = false, key_required = false, files = true, suggestions = false;
  std::string source, target;  // the default pair
};
nlohmann::json libretranslate_frontend_settings(const FrontendSettings& settings);

// The file types POST /translate_file takes.
const std::vector<std::string>& supported_file_formats();  // {".txt", ".odt", ..., ".md", ".htm"}

}  // namespace nmt::serve
