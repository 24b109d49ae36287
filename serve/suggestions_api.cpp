#include "serve/suggestions_api.h"

#include "serve/http_error.h"
#include "serve/libretranslate_api.h"
#include "text/utf8.h"
#include "util/error.h"

namespace nmt::serve {

nlohmann::json store_suggestion(memory::SuggestionStore& store, const nlohmann::json& fields,
                                const std::string& api_key, const RequestLimits& limits) {
  if (!fields.is_object()) throw HttpError(400, "Invalid JSON format");
  memory::Suggestion s;
  s.source = string_field(fields, "q", true);
  s.suggestion = string_field(fields, "s", true);
  s.source_lang = string_field(fields, "source", true);
  s.target_lang = string_field(fields, "target", true);
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"q", &s.source}, {"s", &s.suggestion}}) {
    if (value->find_first_not_of(" \t\r\n") == std::string::npos) {
      throw HttpError(400, std::string("Invalid request: missing ") + name + " parameter");
    }
  }
  limits.check({s.source, s.suggestion});
  s.api_key = api_key;
  try {
    store.add(s);
  } catch (const Error& e) {
    throw HttpError(507, e.what());
  }
  return {{"success", true}};
}

}  // namespace nmt::serve
