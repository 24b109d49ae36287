#include "serve/libretranslate_api.h"

#include "serve/http_error.h"
#include "util/language_code.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

std::string string_field(const json& body, const char* key, bool required) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) {
    if (required) throw HttpError(400, std::string("Invalid request: missing ") + key + " parameter.");
    return "";
  }
  if (!it->is_string()) throw HttpError(400, std::string("Invalid request: ") + key + " must be a string.");
  return it->get<std::string>();
}

void read_q(const json& body, LibreTranslateRequest& r) {
  const auto it = body.find("q");
  if (it == body.end() || it->is_null()) throw HttpError(400, "Invalid request: missing q parameter.");
  if (it->is_string()) {
    r.texts.push_back(it->get<std::string>());
    return;
  }
  if (!it->is_array()) throw HttpError(400, "Invalid request: q must be a string or an array of strings.");
  r.array = true;
  for (const auto& item : *it) {
    if (!item.is_string()) throw HttpError(400, "Invalid request: every element of q must be a string.");
    r.texts.push_back(item.get<std::string>());
  }
}

int64_t read_alternatives(const json& body) {
  const auto it = body.find("alternatives");
  if (it == body.end() || it->is_null()) return 0;
  int64_t n = -1;
  if (it->is_number_integer()) n = it->get<int64_t>();
  if (it->is_string()) {  // form data carries numbers as text
    const std::string s = it->get<std::string>();
    if (!s.empty() && s.size() < 4 && s.find_first_not_of("0123456789") == std::string::npos) n = std::stoll(s);
  }
  if (n < 0) throw HttpError(400, "Invalid request: alternatives must be a non-negative integer.");
  return n;
}

void check_pair(const LibreTranslateRequest& r, const data::LanguagePair& pair) {
  if (r.source == "auto") {
    throw HttpError(400, "This server does not detect languages; give source \"" + pair.source + "\".");
  }
  if (r.source != pair.source || r.target != pair.target) {
    throw HttpError(400, "This server translates " + pair.source + " to " + pair.target + ", not " + r.source + " to " +
                             r.target + ".");
  }
  if (r.format != "text" && r.format != "html") {
    throw HttpError(400, "Invalid request: format must be \"text\" or \"html\" (got \"" + r.format + "\").");
  }
}

}  // namespace

LibreTranslateRequest parse_libretranslate(const json& body, const data::LanguagePair& pair) {
  if (!body.is_object()) throw HttpError(400, "Invalid request: the body must be a JSON object.");
  LibreTranslateRequest r;
  read_q(body, r);
  r.source = string_field(body, "source", true);
  r.target = string_field(body, "target", true);
  const std::string format = string_field(body, "format", false);
  if (!format.empty()) r.format = format;
  r.api_key = string_field(body, "api_key", false);
  r.alternatives = read_alternatives(body);
  check_pair(r, pair);
  return r;
}

json libretranslate_response(const LibreTranslateRequest& request, const std::vector<TextTranslation>& translations) {
  json texts = json::array(), alternatives = json::array();
  for (const auto& t : translations) {
    texts.push_back(t.hypotheses.front());
    json alt = json::array();
    for (size_t k = 1; k < t.hypotheses.size() && static_cast<int64_t>(k) <= request.alternatives; ++k) {
      alt.push_back(t.hypotheses[k]);
    }
    alternatives.push_back(std::move(alt));
  }
  json out;
  out["translatedText"] = request.array ? texts : texts.at(0);
  if (request.alternatives > 0) out["alternatives"] = request.array ? alternatives : alternatives.at(0);
  return out;
}

json libretranslate_languages(const data::LanguagePair& pair) {
  return json::array(
      {{{"code", pair.source}, {"name", language_name(pair.source)}, {"targets", json::array({pair.target})}},
       {{"code", pair.target}, {"name", language_name(pair.target)}, {"targets", json::array()}}});
}

}  // namespace nmt::serve
