#include "serve/served_models.h"

#include <algorithm>

#include <ATen/Parallel.h>

#include "kernels/int8_step_product.h"
#include "kernels/packed_linear.h"
#include "serve/http_error.h"

namespace nmt::serve {
namespace {

std::vector<data::LanguagePair> pairs_of(const std::vector<ModelEntry>& models) {
  std::vector<data::LanguagePair> pairs;
  for (const auto& m : models) pairs.push_back(m.pair);
  return pairs;
}

}  // namespace

int64_t workers_for(const decode::Translator& translator, size_t models, const BatcherOptions& batching) {
  if (models > 1) return 1;  // turns: one round at a time on all the cores
  const auto precision = translator.options().precision;
  const bool own_kernels =
      (precision == Precision::kFp32 && kernels::PackedLinear::available(torch::kFloat)) ||
      (precision == Precision::kInt8 && kernels::Int8StepWeights::available());
  if (!translator.device().is_cpu() || !own_kernels) return 1;
  return batching.workers > 0 ? batching.workers : std::max(1, at::get_num_threads());
}

ServedModels::ServedModels(std::vector<ModelEntry> models, const BatcherOptions& batching, ServerMetrics& metrics)
    : models_(std::move(models)), routes_(pairs_of(models_)) {
  // One model needs no turns: its batcher is the only one using the cores.
  ComputeTurns* turns = models_.size() > 1 ? &turns_ : nullptr;
  for (auto& m : models_) {
    BatcherOptions options = batching;
    options.workers = workers_for(*m.translator, models_.size(), batching);
    batchers_.push_back(std::make_unique<Batcher>(*m.translator, options, metrics, turns));
  }
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
  if (request.glossary && route.models.size() > 1) {
    throw HttpError(400, "A request's glossary needs a model of its own pair; this pair is translated through " +
                             std::to_string(route.models.size() - 1) + " pivot language(s).");
  }
  std::vector<std::string> inputs = texts;
  std::vector<TextTranslation> out;
  for (size_t leg = 0; leg < route.models.size(); ++leg) {
    Batcher& batcher = *batchers_.at(route.models[leg]);
    DecodingRequest decoding;
    decoding.placeholders = batcher.translator().options().placeholders;
    auto& literals = decoding.placeholders->literals;
    literals.insert(literals.end(), request.keep_verbatim.begin(), request.keep_verbatim.end());
    if (request.glossary) {
      const auto& own = batcher.translator().glossary();
      decoding.glossary = own ? std::make_shared<const memory::Glossary>(own->merged_with(*request.glossary))
                              : request.glossary;
    }
    const auto& search = batcher.translator().options().search;
    if (leg + 1 == route.models.size() && alternatives + 1 > search.nbest && search.nbest < search.beam) {
      decoding.search = search;
      decoding.search->nbest = std::min(alternatives + 1, search.beam);
    }
    out = html ? translate_html_texts(batcher, inputs, *decoding.placeholders, decoding.glossary)
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
