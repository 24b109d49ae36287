// The models one server serves: each with its own batcher (all taking turns
// on the cores, compute_turns.h), the routes between their languages
// (route_table.h), and language identification limited to the languages
// they translate from.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/language_pair.h"
#include "decode/translation.h"
#include "serve/batcher.h"
#include "serve/compute_turns.h"
#include "serve/route_table.h"
#include "serve/server_metrics.h"
#include "serve/text_translation.h"
#include "text/language_detector.h"

namespace nmt::serve {

// What the server is given for each model it serves.
struct ModelEntry {
  decode::Translator* translator = nullptr;  // outlives the server
  data::LanguagePair pair;
  std::string name;         // the model directory's name
  std::string description;  // checkpoint and step, for /ready
};

// How a request wants its texts translated, beside the route.
struct TextRequest {
  bool html = false;         // the texts are HTML fragments or pages
  bool align = false;        // word links for a direct route's text (none for HTML or a pivot)
  int64_t alternatives = 0;  // extra hypotheses wanted per text
  std::vector<std::string> keep_verbatim;  // the request's own strings kept untranslated (text/placeholders.h)
  // The request's own glossary terms, over the served model's (--glossary); direct pairs only.
  std::shared_ptr<const memory::Glossary> glossary;
};

// How many rounds a model's batcher decodes at once: where every product of
// a step runs this library's kernels (fp32, or int8 with VNNI, on the CPU)
// and the model is served alone, BatcherOptions::workers, or where that is 0
// one a core of the calling thread's --threads; else one. Several models
// take turns on the cores; oneDNN's bf16 products failed from several
// threads under load (cli/translator_cli.cpp, kernels/onednn_cache.h).
int64_t workers_for(const decode::Translator& translator, size_t models, const BatcherOptions& batching);

class ServedModels {
 public:
  // Model i has OpenNMT-py's id i. Starts one batcher per model.
  ServedModels(std::vector<ModelEntry> models, const BatcherOptions& batching, ServerMetrics& metrics);
  ~ServedModels();  // stop()
  ServedModels(const ServedModels&) = delete;
  ServedModels& operator=(const ServedModels&) = delete;

  size_t size() const { return models_.size(); }
  const ModelEntry& model(size_t i) const { return models_.at(i); }
  Batcher& batcher(size_t i) { return *batchers_.at(i); }
  const RouteTable& routes() const { return routes_; }

  // The texts translated along `route` (text or HTML); through a pivot, the
  // first model's best translation is the second model's input, and the
  // alternatives are the second model's. Alternatives beyond what the
  // server's --nbest gives: the last model returns up to its beam's
  // hypotheses (a wider beam would change the best translation).
  std::vector<TextTranslation> translate(const Route& route, const std::vector<std::string>& texts,
                                         const TextRequest& request = {});
  // The source languages CLD2 finds in `text` (HTML: its text), best first (empty: none).
  std::vector<text::DetectedLanguage> detect(const std::string& text, bool html = false) const;

  // Translates what is queued, then ends every batcher. Idempotent.
  void stop();

 private:
  std::vector<ModelEntry> models_;
  RouteTable routes_;
  ComputeTurns turns_;  // before batchers_: they hold a pointer to it
  std::vector<std::unique_ptr<Batcher>> batchers_;
};

}  // namespace nmt::serve
