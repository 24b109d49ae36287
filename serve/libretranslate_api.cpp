#include "serve/libretranslate_api.h"

#include <algorithm>

#include "serve/http_error.h"
#include "text/utf8.h"
#include "util/error.h"
#include "util/language_code.h"

namespace nmt::serve {
namespace {

using nlohmann::json;


void read_q(const json& body, LibreTranslateRequest& r) {
  const auto it = body.find("q");
  if (it == body.end() || it->is_null()) throw HttpError(400, "Invalid request: missing q parameter");
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

// A true/false field, from JSON or form data ("true", "1").
bool read_flag(const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_string()) {
    const std::string v = it->get<std::string>();
    if (v == "true" || v == "1") return true;
    if (v == "false" || v == "0" || v.empty()) return false;
  }
  throw HttpError(400, std::string("Invalid request: ") + key + " must be true or false.");
}

// "keep_verbatim": an array of strings, or (form data) one string a line.
std::vector<std::string> read_keep_verbatim(const json& body) {
  constexpr size_t kMaxStrings = 1000, kMaxBytes = 1000;
  const auto it = body.find("keep_verbatim");
  std::vector<std::string> out;
  if (it == body.end() || it->is_null()) return out;
  if (it->is_string()) {
    for (auto& line : split_lines(it->get<std::string>())) {
      if (!line.empty()) out.push_back(std::move(line));
    }
  } else if (it->is_array()) {
    for (const auto& v : *it) {
      if (!v.is_string() || v.get<std::string>().empty()) {
        throw HttpError(400, "Invalid request: keep_verbatim must list non-empty strings.");
      }
      out.push_back(v.get<std::string>());
    }
  } else {
    throw HttpError(400, "Invalid request: keep_verbatim must be an array of strings.");
  }
  if (out.size() > kMaxStrings) {
    throw HttpError(400, "Invalid request: keep_verbatim lists " + std::to_string(out.size()) +
                             " strings; at most " + std::to_string(kMaxStrings) + " are taken.");
  }
  for (const auto& k : out) {
    if (k.size() > kMaxBytes) {
      throw HttpError(400, "Invalid request: a keep_verbatim string is longer than " + std::to_string(kMaxBytes) +
                               " bytes.");
    }
  }
  return out;
}

// "glossary": an object of source term -> target term, or (form data) one
// "source<TAB>target" a line.
std::shared_ptr<const memory::Glossary> read_glossary(const json& body) {
  constexpr size_t kMaxTerms = 1000, kMaxBytes = 1000;
  const auto it = body.find("glossary");
  if (it == body.end() || it->is_null()) return nullptr;
  std::vector<std::pair<std::string, std::string>> terms;
  if (it->is_string()) {
    for (const auto& line : split_lines(it->get<std::string>())) {
      if (line.empty()) continue;
      const auto tab = line.find('\t');
      if (tab == std::string::npos) {
        throw HttpError(400, "Invalid request: a glossary line must be a source term, a tab, its target term.");
      }
      terms.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
  } else if (it->is_object()) {
    for (const auto& [source, target] : it->items()) {
      if (!target.is_string()) throw HttpError(400, "Invalid request: glossary must map each source term to a string.");
      terms.emplace_back(source, target.get<std::string>());
    }
  } else {
    throw HttpError(400, "Invalid request: glossary must be an object of source term -> target term.");
  }
  if (terms.size() > kMaxTerms) {
    throw HttpError(400, "Invalid request: glossary holds " + std::to_string(terms.size()) + " terms; at most " +
                             std::to_string(kMaxTerms) + " are taken.");
  }
  auto glossary = std::make_shared<memory::Glossary>();
  for (const auto& [source, target] : terms) {
    if (source.size() > kMaxBytes || target.size() > kMaxBytes) {
      throw HttpError(400, "Invalid request: a glossary term is longer than " + std::to_string(kMaxBytes) + " bytes.");
    }
    if (text::find_invalid_utf8(source) != source.size() || text::find_invalid_utf8(target) != target.size()) {
      throw HttpError(400, "Invalid request: a glossary term is not valid UTF-8.");
    }
    try {
      glossary->add(source, target);
    } catch (const DataError& e) {
      throw HttpError(400, std::string("Invalid request: ") + e.what());
    }
  }
  return glossary->empty() ? nullptr : glossary;
}

json unmet_json(const decode::UnmetTerm& term) {
  return {{"source", term.source},
          {"target", term.target},
          {"reason", term.writable ? "no translation within the length limit contains it"
                                   : "the model's vocabulary cannot write it"}};
}

json detected_json(const text::DetectedLanguage& d) {
  return {{"confidence", d.confidence}, {"language", d.language}};
}

}  // namespace

std::string string_field(const json& body, const char* key, bool required) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) {
    if (required) throw HttpError(400, std::string("Invalid request: missing ") + key + " parameter");
    return "";
  }
  if (!it->is_string()) throw HttpError(400, std::string("Invalid request: ") + key + " must be a string.");
  return it->get<std::string>();
}

LibreTranslateRequest parse_libretranslate(const json& body) {
  if (!body.is_object()) throw HttpError(400, "Invalid JSON format");
  LibreTranslateRequest r;
  read_q(body, r);
  r.source = string_field(body, "source", true);
  r.target = string_field(body, "target", true);
  const std::string format = string_field(body, "format", false);
  if (!format.empty()) r.format = format;
  r.api_key = string_field(body, "api_key", false);
  r.alternatives = read_alternatives(body);
  r.alignment = read_flag(body, "alignment");
  r.keep_verbatim = read_keep_verbatim(body);
  r.glossary = read_glossary(body);
  return r;
}

json libretranslate_response(const LibreTranslateRequest& request, const std::vector<TextTranslation>& translations,
                             const std::vector<text::DetectedLanguage>& detected) {
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
  if (request.alignment) {
    json each = json::array();
    for (const auto& t : translations) {
      json links = json::array();
      for (const auto& l : t.alignment) links.push_back({l.target_begin, l.target_end, l.source_begin, l.source_end});
      each.push_back(std::move(links));
    }
    out["alignment"] = request.array ? each : each.at(0);
  }
  const bool unmet = std::any_of(translations.begin(), translations.end(),
                                 [](const TextTranslation& t) { return !t.unmet_terms.empty(); });
  if (unmet) {
    json each = json::array();
    for (const auto& t : translations) {
      json terms = json::array();
      for (const auto& term : t.unmet_terms) terms.push_back(unmet_json(term));
      each.push_back(std::move(terms));
    }
    out["unmetTerms"] = request.array ? each : each.at(0);
  }
  if (!detected.empty()) {
    json each = json::array();
    for (const auto& d : detected) each.push_back(detected_json(d));
    out["detectedLanguage"] = request.array ? each : each.at(0);
  }
  return out;
}

json libretranslate_languages(const RouteTable& routes) {
  std::vector<std::string> codes = routes.sources();
  for (const auto& source : routes.sources()) {
    for (const auto& target : routes.targets(source)) codes.push_back(target);
  }
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  json out = json::array();
  for (const auto& code : codes) {
    out.push_back({{"code", code}, {"name", language_name(code)}, {"targets", routes.targets(code)}});
  }
  return out;
}

json libretranslate_detections(const std::vector<text::DetectedLanguage>& detected) {
  json out = json::array();
  for (const auto& d : detected) out.push_back(detected_json(d));
  return out;
}

const std::vector<std::string>& supported_file_formats() {
  // LibreTranslate's list in its order (but .pdf), then ours.
  static const std::vector<std::string> formats = {".txt", ".odt", ".odp", ".docx", ".pptx", ".epub",
                                                   ".html", ".srt", ".md", ".htm"};
  return formats;
}

json libretranslate_frontend_settings(const FrontendSettings& s) {
  auto language = [](const std::string& code) {
    return json{{"code", code}, {"name", code == "auto" ? std::string("Auto Detect") : language_name(code)}};
  };
  return {{"charLimit", s.char_limit},
          {"frontendTimeout", 500},
          {"apiKeys", s.api_keys},
          {"keyRequired", s.key_required},
          {"suggestions", s.suggestions},
          {"filesTranslation", s.files},
          {"supportedFilesFormat", supported_file_formats()},
          {"language", {{"source", language(s.source)}, {"target", language(s.target)}}}};
}

}  // namespace nmt::serve
