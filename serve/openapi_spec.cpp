#include "serve/openapi_spec.h"

#include <cctype>
#include <map>
#include <stdexcept>
#include <string>

#include "serve/http_routes.h"
#include "serve/libretranslate_api.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

json ref(const std::string& name) { return {{"$ref", "#/definitions/" + name}}; }

json form(const std::string& name, bool required, const std::string& description, json schema) {
  return {{"in", "formData"}, {"name", name}, {"required", required}, {"description", description}, {"schema", schema}};
}

json text_schema(const std::string& example) { return {{"type", "string"}, {"example", example}}; }

json api_key() { return form("api_key", false, "API key", text_schema("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")); }

// The error answers a LibreTranslate route gives, with the success one.
json responses(const std::string& ok, const std::string& ok_schema, const std::string& failure) {
  return {{"200", {{"description", ok}, {"schema", ref(ok_schema)}}},
          {"400", {{"description", "Invalid request"}, {"schema", ref("error-response")}}},
          {"403", {{"description", "Banned"}, {"schema", ref("error-response")}}},
          {"429", {{"description", "Slow down"}, {"schema", ref("error-slow-down")}}},
          {"500", {{"description", failure}, {"schema", ref("error-response")}}}};
}

json operation(const std::string& summary, const std::string& tag, json parameters, json answers) {
  json op = {{"summary", summary}, {"description", ""}, {"tags", {tag}}, {"responses", std::move(answers)}};
  if (!parameters.empty()) op["parameters"] = std::move(parameters);
  return op;
}

json ok(const std::string& description, const std::string& schema) {
  return {{"200", {{"description", description}, {"schema", ref(schema)}}}};
}

json object_of(json properties) { return {{"type", "object"}, {"properties", std::move(properties)}}; }

json described(const std::string& type, const std::string& description) {
  return {{"type", type}, {"description", description}};
}

json language_object() {
  return object_of({{"code", described("string", "Language code")},
                    {"name", described("string", "Human-readable language name (in English)")}});
}

json detection() {
  return object_of({{"confidence", {{"type", "number"}, {"format", "float"}, {"minimum", 0}, {"maximum", 100},
                                    {"description", "Confidence value"}, {"example", 100}}},
                    {"language", described("string", "Language code")}});
}

json definitions() {
  json d;
  d["detections"] = {{"type", "array"}, {"items", detection()}};
  d["error-response"] = object_of({{"error", described("string", "Error message")}});
  d["error-slow-down"] = object_of({{"error", described("string", "Reason for slow down")}});
  d["frontend-settings"] = object_of(
      {{"charLimit", described("integer", "Character input limit for this language (-1 indicates no limit)")},
       {"frontendTimeout", described("integer", "Frontend translation timeout")},
       {"apiKeys", described("boolean", "Whether the API key database is enabled.")},
       {"keyRequired", described("boolean", "Whether an API key is required.")},
       {"suggestions", described("boolean", "Whether submitting suggestions is enabled.")},
       {"filesTranslation", described("boolean", "Whether files can be translated.")},
       {"supportedFilesFormat",
        {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Supported files format"}}},
       {"language", object_of({{"source", language_object()}, {"target", language_object()}})}});
  d["health-response"] = object_of({{"status", {{"type", "string"}, {"description", "Health status"}, {"example", "ok"}}}});
  json language = language_object();
  language["description"] = "Supported language";
  language["properties"]["targets"] = {
      {"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Supported target language codes"}};
  d["languages"] = {{"type", "array"}, {"items", language}};
  d["suggest-response"] = object_of({{"success", described("boolean", "Whether submission was successful")}});
  d["translate"] = object_of(
      {{"translatedText", {{"oneOf", {{{"type", "string"}}, {{"type", "array"}}}}, {"description", "Translated text(s)"}}},
       {"detectedLanguage", {{"oneOf", {detection(), {{"type", "array"}, {"items", detection()}}}}}},
       {"alternatives", {{"oneOf", {{{"type", "array"}, {"items", {{"type", "string"}}}},
                                    {{"type", "array"}, {"items", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}},
                         {"description", "Alternative translations"}}},
       {"unmetTerms", {{"type", "array"},
                       {"description", "Ours, when a glossary term is missing: per text, [{source, target, reason}]"}}}});
  d["translate"]["required"] = {"translatedText"};
  d["translate-file"] = object_of({{"translatedFileUrl", described("string", "Translated file url")}});
  d["opennmt-translations"] = {{"type", "array"}, {"description", "Per text, its hypotheses: {src, tgt, n_best, pred_score}"},
                               {"items", {{"type", "array"}, {"items", {{"type", "object"}}}}}};
  d["file-progress"] = object_of({{"done", described("integer", "Parts (paragraphs, lines) translated")},
                                  {"total", described("integer", "Parts in all")},
                                  {"finished", described("boolean", "Whether the file is translated")}});
  d["ready-response"] = object_of({{"status", described("string", "\"ready\" once every model is served")},
                                   {"models", described("array", "The served models")},
                                   {"pairs", described("string", "The pairs translated, pivots named")}});
  return d;
}

json query(const std::string& name, const std::string& description, json schema) {
  json q = {{"in", "query"}, {"name", name}, {"required", false}, {"description", description}};
  q.update(schema);
  return q;
}

json path_param(const std::string& name, const std::string& description) {
  return {{"in", "path"}, {"name", name}, {"required", true}, {"type", "string"}, {"description", description}};
}

// The routes that review stored suggestions: a key with the review right, as a Bearer token.
void add_review_operations(std::map<std::string, json>& p) {
  const json refused = {{"description", "No key with the review right"}, {"schema", ref("error-response")}};
  const json none = {{"description", "The server keeps no suggestions (no --suggestions)"}, {"schema", ref("error-response")}};
  const json status = {{"type", "string"}, {"enum", {"pending", "accepted", "rejected", "all"}}};
  p["GET /suggestions"] = operation(
      "List Stored Suggestions (ours; review right)", "suggestions",
      {query("status", "Only those (default all)", status), query("limit", "At most this many (default 100, up to 1000)", {{"type", "integer"}}),
       query("offset", "Skip this many, newest first", {{"type", "integer"}})},
      {{"200", {{"description", "Suggestions, newest first, and how many are stored"}}}, {"403", refused}, {"404", none}});
  p["POST /suggestions/{id}/{decision}"] = operation(
      "Accept or Reject a Suggestion (ours; review right)", "suggestions",
      {path_param("id", "The suggestion's id"), path_param("decision", "accept or reject")},
      {{"200", {{"description", "Its new status"}}}, {"403", refused}, {"404", {{"description", "No such suggestion"}, {"schema", ref("error-response")}}}});
  p["GET /suggestions/export"] = operation(
      "Export Suggestions as TMX or TSV (ours; review right)", "suggestions",
      {query("format", "tmx (default) or tsv", {{"type", "string"}, {"enum", {"tmx", "tsv"}}}),
       query("status", "Only those (default accepted)", status)},
      {{"200", {{"description", "The file, oldest suggestion first"}}}, {"403", refused}, {"404", none}});
  p["POST /suggestions/import"] = operation(
      "Import a TMX File as Accepted Suggestions (ours; review right)", "suggestions",
      {{{"in", "body"}, {"name", "body"}, {"required", true}, {"description", "The TMX file's bytes"},
        {"schema", {{"type", "string"}}}}},
      {{"200", {{"description", "How many pairs were stored"}}},
       {"400", {{"description", "Not TMX (the line named)"}, {"schema", ref("error-response")}}}, {"403", refused}, {"404", none}});
}

// Each route's description, by its key (serve/http_routes.h).
std::map<std::string, json> operations() {
  std::map<std::string, json> p;
  p["POST /translate"] = operation(
      "Translate Text", "translate",
      {form("q", true, "Text(s) to translate",
            {{"oneOf", {{{"type", "string"}, {"example", "Hello world!"}},
                        {{"type", "array"}, {"example", {"Hello world!"}}}}}}),
       form("source", true, "Source language code or \"auto\" for auto detection", text_schema("en")),
       form("target", true, "Target language code", text_schema("es")),
       form("format", false, "Format of source text:\n * `text` - Plain text\n * `html` - HTML markup\n",
            {{"type", "string"}, {"enum", {"text", "html"}}, {"default", "text"}, {"example", "text"}}),
       form("alternatives", false, "Preferred number of alternative translations",
            {{"type", "integer"}, {"default", 0}, {"example", 3}}),
       form("keep_verbatim", false,
            "Ours: strings to keep untranslated wherever they occur (an array, or one a line in form data), "
            "beside the placeholders, tags, URLs and e-mail addresses always kept",
            {{"type", "array"}, {"items", {{"type", "string"}}}, {"example", {"Acme Cloud"}}}),
       form("glossary", false,
            "Ours: terms that must be translated so, over the server's --glossary (an object of source term -> "
            "target term, or one \"source<TAB>target\" a line in form data; direct pairs only). Enforced by "
            "constrained beam search; a term no translation could meet is listed in unmetTerms",
            {{"type", "object"}, {"additionalProperties", {{"type", "string"}}},
             {"example", {{"pull request", "Pull-Request"}}}}),
       api_key()},
      responses("Translation", "translate", "Translation error"));
  json file = {{"in", "formData"}, {"name", "file"}, {"type", "file"}, {"required", true},
               {"description", "File to translate"}};
  p["POST /translate_file"] = operation(
      "Translate a File", "translate",
      {file, form("source", true, "Source language code or \"auto\" for auto detection", text_schema("en")),
       form("target", true, "Target language code", text_schema("es")), api_key(),
       form("progress_id", false, "Ours: an id to follow the translation's progress by", text_schema("3f2c9a1e-77d0"))},
      responses("Translated file", "translate-file", "Translation error"));
  p["POST /translate_file"]["consumes"] = {"multipart/form-data"};
  p["POST /detect"] = operation("Detect Language of Text", "translate",
                                   {form("q", true, "Text to detect", text_schema("What language is this?")), api_key()},
                                   responses("Detections", "detections", "Detection error"));
  p["GET /languages"] = operation("Get Supported Languages", "translate", json::array(),
                                     ok("List of supported languages", "languages"));
  p["GET /frontend/settings"] =
      operation("Retrieve Frontend Settings", "misc", json::array(), ok("frontend settings", "frontend-settings"));
  p["GET /health"] = operation("Health Check", "misc", json::array(), ok("Service is healthy", "health-response"));
  p["POST /suggest"] = operation(
      "Submit a Suggestion to Improve a Translation", "misc",
      {form("q", true, "Original text", text_schema("Hello world!")),
       form("s", true, "Suggested translation", text_schema("\xC2\xA1Hola mundo!")),
       form("source", true, "Language of original text", text_schema("en")),
       form("target", true, "Language of suggested translation", text_schema("es"))},
      {{"200", {{"description", "Success"}, {"schema", ref("suggest-response")}}},
       {"403", {{"description", "Not authorized"}, {"schema", ref("error-response")}}}});
  p["GET /download_file/{filename}"] = operation(
      "Download a Translated File", "translate",
      {{{"in", "path"}, {"name", "filename"}, {"required", true}, {"type", "string"},
        {"description", "The name in translatedFileUrl"}}},
      {{"200", {{"description", "The translated file"}}},
       {"404", {{"description", "No such file (files are kept for a limited time)"}, {"schema", ref("error-response")}}}});
  p["GET /translate_file/progress/{id}"] = operation(
      "Progress of a File Being Translated", "translate",
      {{{"in", "path"}, {"name", "id"}, {"required", true}, {"type", "string"},
        {"description", "The progress_id the upload carried (8 to 64 letters, digits or '-')"}}},
      {{"200", {{"description", "Parts done and in all"}, {"schema", ref("file-progress")}}},
       {"404", {{"description", "No such upload"}, {"schema", ref("error-response")}}}});
  add_review_operations(p);
  p["POST /reload"] = operation(
      "Load the Model Directories Again (ours; review right)", "misc", json::array(),
      {{"200", {{"description", "The new models serve; requests in flight finished on the old ones"}}},
       {"403", {{"description", "No key with the review right"}, {"schema", ref("error-response")}}},
       {"404", {{"description", "The server was given no directories to reload"}, {"schema", ref("error-response")}}},
       {"500", {{"description", "Loading failed; the old models go on serving"}, {"schema", ref("error-response")}}}});
  p["POST /translator/translate"] = operation(
      "Translate Texts (OpenNMT-py's API)", "opennmt",
      {{{"in", "body"}, {"name", "body"}, {"required", true},
        {"description", "[{\"src\": TEXT, \"id\": MODEL_ID}, ...], decoding options as the translator's flags"},
        {"schema", {{"type", "array"}, {"items", {{"type", "object"}}}}}}},
      responses("Translations", "opennmt-translations", "Translation error"));
  p["GET /translator/models"] =
      operation("List the Served Models (OpenNMT-py's API)", "opennmt", json::array(),
                {{"200", {{"description", "Models"}, {"schema", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}});
  p["GET /ready"] = operation("Readiness Check", "misc", json::array(),
                                 {{"200", {{"description", "Every model is served"}, {"schema", ref("ready-response")}}},
                                  {"503", {{"description", "The models are still loading"}, {"schema", ref("error-response")}}}});
  p["GET /metrics"] = operation("Prometheus Metrics", "misc", json::array(),
                                   {{"200", {{"description", "Metrics in Prometheus's text format"}}}});
  p["GET /spec"] = operation("This Description", "misc", json::array(),
                                {{"200", {{"description", "Swagger 2.0"}}}});
  return p;
}

json paths() {
  const auto described = operations();
  json p;
  for (const auto& route : http_routes()) {
    if (route.page) continue;  // the page is not part of the API
    const auto it = described.find(route_key(route));
    if (it == described.end()) throw std::logic_error("/spec does not describe " + route_key(route) + ".");
    std::string method = route.method;
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    p[route.path][method] = it->second;
  }
  return p;
}

}  // namespace

json openapi_spec() {
  return {{"basePath", "/"},
          {"definitions", definitions()},
          {"info", {{"description", "Machine translation with Transformer models: LibreTranslate's API and "
                                    "OpenNMT-py's, one server for many language pairs."},
                    {"title", "LibreTranslate-compatible translation server"},
                    {"version", "1.0"}}},
          {"paths", paths()},
          {"swagger", "2.0"}};
}

}  // namespace nmt::serve
