#include "train/validation.h"

#include <cmath>

#include <torch/torch.h>

#include "data/language_tags.h"
#include "decode/checked_translation.h"
#include "decode/translation.h"
#include "eval/bleu.h"
#include "train/loss.h"
#include "util/threads.h"

namespace nmt::train {

ValidationResult run_validation(model::TransformerImpl& model, const std::vector<data::Batch>& batches,
                                const Config& config, const torch::Device& device, Precision precision) {
  torch::NoGradGuard no_grad;
  const DecodingThreads threads;
  double nll = 0;
  ValidationResult r;
  for (const auto& b : batches) {
    PrecisionScope scope(precision, device);
    auto logits = model.forward(b.src.to(device), b.tgt_in.to(device));
    auto parts = label_smoothed_loss(logits, b.gold.to(device), config.model.trg_pad_idx, 0.0);
    nll += parts.nll_sum.item<double>();
    r.tokens += parts.tokens;
  }
  r.loss = r.tokens > 0 ? nll / static_cast<double>(r.tokens) : 0.0;
  r.ppl = std::exp(std::min(r.loss, 50.0));
  r.score = -r.loss;
  return r;
}

Validator::Validator(const Config& config, std::vector<data::Batch> batches)
    : config_(config), batches_(std::move(batches)), source_tag_(data::validation_tag(config.data)) {}

ValidationResult Validator::validate(model::Transformer model, const vocab::Vocabularies& vocabs,
                                     const torch::Device& device, Precision precision, int64_t beam) {
  ValidationResult v = run_validation(*model, batches_, config_, device, precision);
  if (config_.valid.bleu) {
    v.bleu = decode_bleu(model, vocabs, precision, beam, config_.valid.length_penalty);
    v.score = v.bleu;
  }
  return v;
}

namespace {

// How validation decodes: whole sentences, no coverage check, 64 a batch,
// after the validation pair's language tag if the model has tags.
decode::TranslatorOptions decoding_options(const std::string& source_tag, Precision precision, int64_t beam,
                                           double length_penalty) {
  decode::TranslatorOptions options;
  options.source_tag = source_tag;
  options.search.beam = beam;
  options.search.length_penalty = length_penalty;
  options.batch_size = 64;
  options.precision = precision;
  return options;
}

}  // namespace

const data::ParallelLines& Validator::lines() {
  if (!lines_) {
    lines_ = data::read_parallel_lines(config_.data.valid_src, config_.data.valid_tgt);
    const auto limit = static_cast<size_t>(config_.valid.max_sentences);
    if (limit > 0 && lines_->src.size() > limit) {
      lines_->src.resize(limit);
      lines_->ref.resize(limit);
    }
  }
  return *lines_;
}

std::pair<double, int64_t> Validator::learn_coverage_threshold(model::Transformer model,
                                                               const vocab::Vocabularies& vocabs, Precision precision,
                                                               int64_t beam, double length_penalty) {
  const DecodingThreads threads;
  return {decode::learn_coverage_threshold(model, vocabs, decoding_options(source_tag_, precision, beam, length_penalty), lines().src),
          static_cast<int64_t>(lines().src.size())};
}

double Validator::decode_bleu(model::Transformer model, const vocab::Vocabularies& vocabs, Precision precision,
                              int64_t beam, double length_penalty) {
  const DecodingThreads threads;
  decode::Translator translator(model, vocabs, decoding_options(source_tag_, precision, beam, length_penalty));
  auto results = translator.translate(lines().src);
  eval::BleuStats stats;
  for (size_t i = 0; i < results.size(); ++i) {
    stats.add(results[i].texts.empty() ? std::string() : results[i].texts[0], lines().ref[i]);
  }
  return eval::compute_bleu(stats).score;
}

}  // namespace nmt::train
