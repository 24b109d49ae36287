// What the LibreTranslate routes do once a request's body is read: check the
// key and limits, detect the source language for "auto", pick each text's
// route (a model, or two through a pivot), translate, and shape the answer.
// The HTTP server (http_server.h) reads bodies and sends answers.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "document/document.h"
#include "serve/access_control.h"
#include "serve/file_progress.h"
#include "serve/file_store.h"
#include "serve/request_body.h"
#include "serve/served_models.h"
#include "serve/text_translation.h"

namespace nmt::serve {

// Who asks: the key the request carries ("" for none) and the client's address.
struct Caller {
  std::string key, address;
};

class LibreTranslateService {
 public:
  // Requests with more text than this get no word links (an empty list each).
  static constexpr size_t kMaxAlignedBytes = 8192;

  // Every argument must outlive the service. `progress` is the server's, so
  // that a file's progress outlives a reload that replaces the service.
  LibreTranslateService(ServedModels& models, AccessControl& access, FileStore& files, FileProgress& progress,
                        const RequestLimits& limits);

  // POST /translate. `pivots`: the languages translated through, for a header.
  nlohmann::json translate(const RequestBody& body, const Caller& caller, std::vector<std::string>& pivots);
  // POST /detect.
  nlohmann::json detect(const RequestBody& body, const Caller& caller);
  // POST /translate_file; `base_url` ("http://host:port") starts the download URL.
  // With a `progress_id` field its parts are counted in progress().
  nlohmann::json translate_file(const RequestBody& body, const Caller& caller, const std::string& base_url);
  // GET /frontend/settings.
  nlohmann::json frontend_settings() const;
  // Whether POST /suggest stores suggestions (frontend settings say so).
  void set_suggestions(bool on) { suggestions_ = on; }
  // GET /translate_file/progress/ID.
  const FileProgress& progress() const { return progress_; }

  // The language of `text` among the server's sources: CLD2's best, or when
  // it finds none (too short, too mixed, another language) English with
  // confidence 0, as LibreTranslate falls back (here: English if the server
  // translates from it, else its first source language).
  text::DetectedLanguage detect_source(const std::string& text, bool html = false) const;

 private:
  // The route, or LibreTranslate's 400 for an unknown source or target ("xx
  // is not supported") or a pair not served.
  Route route_for(const std::string& source, const std::string& target) const;
  // A text already in the target language (source "auto" found it so): it is its own translation.
  bool same_language(const std::string& source, const std::string& target) const;
  // route_for's 400 unless the pair is served or the languages are one.
  void check_pair(const std::string& source, const std::string& target) const;
  // `texts` from `source` to `target`; a text already in the target language
  // (source "auto" found it so) comes back as it is.
  std::vector<TextTranslation> translate_texts_of(const std::string& source, const std::string& target,
                                                  const std::vector<std::string>& texts, const TextRequest& request,
                                                  std::vector<std::string>& pivots);
  // A text file's lines, 64 at a time; a chunk that finds the queue full waits
  // for room (up to a minute) instead of losing the chunks done before it.
  std::string translate_text_file(const std::string& source, const std::string& target, const std::string& content,
                                  const std::string& progress_id);
  // A document (.docx, .srt, ...) translated in parts through the batcher,
  // its formatting kept (document/document.h); a damaged or refused one is
  // LibreTranslate's 400 naming what is wrong.
  std::string translate_document_file(std::string source, const std::string& target, document::DocumentFormat format,
                                      const UploadedFile& file, const std::string& progress_id);

  ServedModels& models_;
  AccessControl& access_;
  FileStore& files_;
  FileProgress& progress_;
  RequestLimits limits_;
  bool suggestions_ = false;
};

}  // namespace nmt::serve
