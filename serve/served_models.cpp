#include "serve/served_models.h"

#include <algorithm>

namespace nmt::serve {
namespace {

std::vector<data::LanguagePair> pairs_of(const std::vector<ModelEntry>& models) {
  std::vector<data::LanguagePair> pairs;
  for (const auto& m : models) pairs.push_back(m.pair);
  return pairs;
}

}  // namespace

ServedModels::ServedModels(std::vector<ModelEntry> models, const BatcherOptions& batching, ServerMetrics& metrics)
    : models_(std::move(models)), routes_(pairs_of(models_)) {
  // One model needs no turns: its batcher is the only one using the cores.
  ComputeTurns* turns = models_.size() > 1 ? &turns_ : nullptr;
  for (auto& m : models_) batchers_.push_back(std::make_unique<Batcher>(*m.translator, batching, metrics, turns));
}

ServedModels::~ServedModels() { stop(); }

void ServedModels::stop() {
  for (auto& b : batchers_) b->stop();
}

std::vector<TextTranslation> ServedModels::translate(const Route& route, const std::vector<std::string>& texts,
                                                     const TextRequest& request) {
  const bool html = request.html;
  const bool align = request.align && !html && route.models.size() == 1;
  const int64_t alternatives = request.alternatives;
  std::vector<std::string> inputs = texts;
  std::vector<TextTranslation> out;
  for (size_t leg = 0; leg < route.models.size(); ++leg) {
    Batcher& batcher = *batchers_.at(route.models[leg]);
    DecodingRequest decoding;
    decoding.placeholders = batcher.translator().options().placeholders;
    auto& literals = decoding.placeholders->literals;
    literals.insert(literals.end(), request.keep_verbatim.begin(), request.keep_verbatim.end());
    const auto& search = batcher.translator().options().search;
    if (leg + 1 == route.models.size() && alternatives + 1 > search.nbest && search.nbest < search.beam) {
      decoding.search = search;
      decoding.search->nbest = std::min(alternatives + 1, search.beam);
    }
    out = html ? translate_html_texts(batcher, inputs, *decoding.placeholders)
               : translate_texts(batcher, inputs, align, decoding);
    if (leg + 1 < route.models.size()) {
      for (size_t i = 0; i < out.size(); ++i) inputs[i] = out[i].hypotheses.front();
    }
  }
  return out;
}

std::vector<text::DetectedLanguage> ServedModels::detect(const std::string& text, bool html) const {
  return text::detect_languages(text, routes_.sources(), html);
}

}  // namespace nmt::serve
