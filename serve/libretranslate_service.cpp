#include "serve/libretranslate_service.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <map>

#include "serve/http_error.h"
#include "serve/libretranslate_api.h"
#include "util/error.h"
#include "util/language_code.h"

namespace nmt::serve {

using nlohmann::json;

LibreTranslateService::LibreTranslateService(ServedModels& models, AccessControl& access, FileStore& files,
                                             FileProgress& progress, const RequestLimits& limits)
    : models_(models), access_(access), files_(files), progress_(progress), limits_(limits) {}

text::DetectedLanguage LibreTranslateService::detect_source(const std::string& text, bool html) const {
  const auto found = models_.detect(text, html);
  if (!found.empty()) return found.front();
  const auto sources = models_.routes().sources();
  const bool english = std::find(sources.begin(), sources.end(), "en") != sources.end();
  return {english ? "en" : sources.front(), 0.0};
}

json LibreTranslateService::translate(const RequestBody& body, const Caller& caller, std::vector<std::string>& pivots) {
  const auto request = parse_libretranslate(body.fields);
  access_.admit(caller.key, caller.address, std::max<int64_t>(1, static_cast<int64_t>(request.texts.size())));
  limits_.check(request.texts, /*count_lines=*/!request.html());
  std::vector<text::DetectedLanguage> detected;
  std::vector<std::string> sources(request.texts.size(), request.source);
  if (request.source == "auto") {
    for (size_t i = 0; i < request.texts.size(); ++i) {
      detected.push_back(detect_source(request.texts[i], request.html()));
      sources[i] = detected.back().language;
    }
  }
  // As LibreTranslate: the languages first, then the format.
  for (const auto& source : sources) check_pair(source, request.target);
  if (request.format != "text" && request.format != "html") {
    throw HttpError(400, request.format + " format is not supported");
  }
  // Word links cost a pass of the model per sentence on the worker: only for
  // texts the size of what a person types (the page), not for bulk requests.
  size_t chars = 0;
  for (const auto& t : request.texts) chars += t.size();
  const bool align = request.alignment && chars <= kMaxAlignedBytes;
  // Texts of one source language go together; with "auto" a request may hold several.
  std::map<std::string, std::vector<size_t>> by_source;
  for (size_t i = 0; i < sources.size(); ++i) by_source[sources[i]].push_back(i);
  std::vector<TextTranslation> translations(request.texts.size());
  for (const auto& [source, indices] : by_source) {
    std::vector<std::string> texts;
    for (size_t i : indices) texts.push_back(request.texts[i]);
    const TextRequest asked{request.html(), align, request.alternatives, request.keep_verbatim, request.glossary};
    auto done = translate_texts_of(source, request.target, texts, asked, pivots);
    for (size_t k = 0; k < indices.size(); ++k) translations[indices[k]] = std::move(done[k]);
  }
  return libretranslate_response(request, translations, detected);
}

bool LibreTranslateService::same_language(const std::string& source, const std::string& target) const {
  const auto sources = models_.routes().sources();
  return source == target && std::find(sources.begin(), sources.end(), source) != sources.end();
}

void LibreTranslateService::check_pair(const std::string& source, const std::string& target) const {
  if (!same_language(source, target)) route_for(source, target);
}

std::vector<TextTranslation> LibreTranslateService::translate_texts_of(const std::string& source,
                                                                       const std::string& target,
                                                                       const std::vector<std::string>& texts,
                                                                       const TextRequest& request,
                                                                       std::vector<std::string>& pivots) {
  if (same_language(source, target)) {
    std::vector<TextTranslation> same;
    for (const auto& t : texts) same.push_back({{t}, {0.0}, {}, {}, {}});
    return same;
  }
  const Route route = route_for(source, target);
  if (!route.pivot.empty()) pivots.push_back(route.pivot);
  return models_.translate(route, texts, request);
}

namespace {

// `call` again while the queue is full, up to a minute: a busy server keeps
// the parts of a file done so far instead of failing them.
template <typename Call>
auto when_room(Call&& call) {
  constexpr int kTries = 300;
  for (int attempt = 1;; ++attempt) {
    try {
      return call();
    } catch (const QueueFull&) {
      if (attempt == kTries) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

}  // namespace

std::string LibreTranslateService::translate_text_file(const std::string& source, const std::string& target,
                                                       const std::string& content, const std::string& progress_id) {
  constexpr size_t kLinesAtOnce = 64;
  const auto lines = split_lines(content);
  std::string out;
  std::vector<std::string> pivots;
  bool first_line = true;
  for (size_t first = 0; first < lines.size(); first += kLinesAtOnce) {
    const auto end = lines.begin() + static_cast<std::ptrdiff_t>(std::min(lines.size(), first + kLinesAtOnce));
    const std::vector<std::string> chunk(lines.begin() + static_cast<std::ptrdiff_t>(first), end);
    const auto done = when_room([&] { return translate_texts_of(source, target, chunk, TextRequest{false, false, 0, {}, nullptr}, pivots); });
    for (const auto& t : done) {
      if (!first_line) out += '\n';
      out += t.hypotheses.front();
      first_line = false;
    }
    if (!progress_id.empty()) {
      progress_.update(progress_id, static_cast<int64_t>(std::min(lines.size(), first + kLinesAtOnce)),
                       static_cast<int64_t>(lines.size()));
    }
  }
  return out;
}

std::string LibreTranslateService::translate_document_file(std::string source, const std::string& target,
                                                           document::DocumentFormat format, const UploadedFile& file,
                                                           const std::string& progress_id) {
  std::unique_ptr<document::Document> doc;
  try {
    doc = document::open_document(format, file.content, file.filename);
  } catch (const DataError& e) {
    throw HttpError(400, std::string("Invalid request: ") + e.what());
  }
  limits_.check(doc->texts(), /*count_lines=*/false);
  if (source == "auto") {
    std::string sample;
    for (size_t i = 0; i < doc->texts().size() && sample.size() < 4096; ++i) sample += doc->texts()[i] + "\n";
    source = detect_source(sample, /*html=*/true).language;
  }
  check_pair(source, target);
  std::vector<std::string> pivots;
  // In parts, so that a large document shares the batcher with everyone's requests.
  const auto translate = [&](const std::vector<std::string>& texts) {
    const auto done = when_room([&] { return translate_texts_of(source, target, texts, TextRequest{true, false, 0, {}, nullptr}, pivots); });
    std::vector<std::string> out;
    for (const auto& t : done) out.push_back(t.hypotheses.front());
    return out;
  };
  const auto count = [&](size_t done, size_t total) {
    if (!progress_id.empty()) progress_.update(progress_id, static_cast<int64_t>(done), static_cast<int64_t>(total));
  };
  if (!progress_id.empty()) progress_.update(progress_id, 0, static_cast<int64_t>(doc->texts().size()));
  return document::translate_document(*doc, target, translate, 32, count);
}

json LibreTranslateService::detect(const RequestBody& body, const Caller& caller) {
  access_.admit(caller.key, caller.address);
  const auto q = body.fields.find("q");
  if (q != body.fields.end() && !q->is_null() && !q->is_string()) {
    throw HttpError(400, "Invalid request: q must be a string.");
  }
  const std::string text = q != body.fields.end() && q->is_string() ? q->get<std::string>() : "";
  // As LibreTranslate: no text (or only spaces) is a missing q.
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw HttpError(400, "Invalid request: missing q parameter");
  limits_.check({text});
  auto found = models_.detect(text);
  if (found.empty()) found.push_back(detect_source(text));
  return libretranslate_detections(found);
}

json LibreTranslateService::translate_file(const RequestBody& body, const Caller& caller, const std::string& base_url) {
  access_.admit(caller.key, caller.address);
  if (!body.file || body.file->filename.empty()) throw HttpError(400, "Invalid request: missing file parameter");
  const UploadedFile& file = *body.file;
  check_upload_name(file.filename);
  const std::string ext = file_extension(file.filename);
  const auto& formats = supported_file_formats();
  if (std::find(formats.begin(), formats.end(), ext) == formats.end()) {
    throw HttpError(400, "Invalid request: file format not supported");
  }
  std::string source = string_field(body.fields, "source", true);
  const std::string target = string_field(body.fields, "target", true);
  const std::string progress_id = string_field(body.fields, "progress_id", false);
  if (!progress_id.empty() && !FileProgress::valid_id(progress_id)) {
    throw HttpError(400, "Invalid request: progress_id must be 8 to 64 letters, digits or '-'");
  }
  // As LibreTranslate names the result: example.txt translated to German is example_de.txt.
  const size_t dot = file.filename.rfind('.');
  const std::string result_name = file.filename.substr(0, dot) + "_" + target + file.filename.substr(dot);
  check_upload_name(result_name);  // before the work, not after
  std::string translated;
  if (const auto format = document::document_format(ext)) {
    translated = translate_document_file(source, target, *format, file, progress_id);
  } else {
    const bool html = ext != ".txt";
    limits_.check({file.content}, /*count_lines=*/false);
    if (source == "auto") source = detect_source(file.content, html).language;
    std::vector<std::string> pivots;
    translated = html ? translate_texts_of(source, target, {file.content}, TextRequest{true, false, 0, {}, nullptr}, pivots).front().hypotheses.front()
                      : translate_text_file(source, target, file.content, progress_id);
  }
  if (!progress_id.empty()) progress_.finish(progress_id);
  const std::string name = files_.put(result_name, translated);
  return {{"translatedFileUrl", base_url + "/download_file/" + name}};
}

Route LibreTranslateService::route_for(const std::string& source, const std::string& target) const {
  const auto& routes = models_.routes();
  const auto sources = routes.sources();
  // LibreTranslate's words to the letter: clients and its tests compare them
  // (GET /languages lists what is served).
  if (std::find(sources.begin(), sources.end(), source) == sources.end()) throw HttpError(400, source + " is not supported");
  if (auto route = routes.find(source, target)) return *route;
  const auto languages = routes.languages();
  if (std::find(languages.begin(), languages.end(), target) == languages.end()) {
    throw HttpError(400, target + " is not supported");
  }
  throw HttpError(400, language_name(target) + " (" + target + ") is not available as a target language from " +
                           language_name(source) + " (" + source + ")");
}

json LibreTranslateService::frontend_settings() const {
  FrontendSettings s;
  s.char_limit = limits_.max_chars;
  s.api_keys = access_.keys_enabled();
  s.key_required = access_.key_required();
  s.suggestions = suggestions_;
  s.source = "auto";
  const auto& first = models_.model(0).pair;
  s.target = first.target;
  return libretranslate_frontend_settings(s);
}

}  // namespace nmt::serve
