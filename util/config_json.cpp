// JSON <-> config structs, the one place that knows the config's keys.
#include <cmath>
#include <limits>
#include <set>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "util/config.h"
#include "util/error.h"

namespace nmt {
namespace {

using nlohmann::json;

// Reads the keys of one JSON object section, remembering which were used so
// that anything left over is reported as an unknown key.
class SectionReader {
 public:
  SectionReader(const json& j, std::string section, std::string origin)
      : j_(j), section_(std::move(section)), origin_(std::move(origin)) {
    if (!j_.is_object()) {
      throw UsageError("Config section '" + section_ + "' in " + origin_ + " must be a JSON object.");
    }
  }

  // Reads `key` into `out` when present; returns whether it was.
  template <typename T>
  bool get(const char* key, T& out) {
    seen_.insert(key);
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return false;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) check_whole_number<T>(key, *it);
    try {
      out = it->template get<T>();
      return true;
    } catch (const json::exception&) {
      throw UsageError("Config key '" + qualified(key) + "' in " + origin_ + " has the wrong type (" +
                       it->dump(-1, ' ', false, json::error_handler_t::replace) + ").");
    }
  }

  // A list of whole numbers, each checked as get() checks one.
  template <typename T>
  bool get_whole_numbers(const char* key, std::vector<T>& out) {
    json list;
    if (!get(key, list)) return false;
    if (!list.is_array()) throw UsageError("Config key '" + qualified(key) + "' in " + origin_ + " must be a list.");
    out.clear();
    for (const auto& v : list) {
      if (!v.is_number()) {
        throw UsageError("Config key '" + qualified(key) + "' in " + origin_ + " must hold numbers (got " +
                         v.dump(-1, ' ', false, json::error_handler_t::replace) + ").");
      }
      check_whole_number<T>(key, v);
      out.push_back(v.get<T>());
    }
    return true;
  }

  void reject_unknown() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!seen_.count(it.key())) {
        throw UsageError("Unknown config key '" + qualified(it.key()) + "' in " + origin_ + ".");
      }
    }
  }

 private:
  // nlohmann converts any number to an integer type with a plain cast, which
  // for 1e48 (or 2.5, or 2^63) is undefined or silently wrong; such values
  // are a config error here. (Found by tests/fuzz/config_fuzz.cpp.)
  template <typename T>
  void check_whole_number(const char* key, const json& v) const {
    if (!v.is_number()) return;  // a type error, reported by get()
    const auto lo = static_cast<long double>(std::numeric_limits<T>::min());
    const auto hi = static_cast<long double>(std::numeric_limits<T>::max());
    const long double x = v.is_number_unsigned()  ? static_cast<long double>(v.get<uint64_t>())
                          : v.is_number_integer() ? static_cast<long double>(v.get<int64_t>())
                                                  : static_cast<long double>(v.get<double>());
    if (!(x >= lo && x <= hi) || x != std::floor(x)) {
      throw UsageError("Config key '" + qualified(key) + "' in " + origin_ + " must be a whole number from " +
                       std::to_string(std::numeric_limits<T>::min()) + " to " +
                       std::to_string(std::numeric_limits<T>::max()) + " (got " +
                       v.dump(-1, ' ', false, json::error_handler_t::replace) + ").");
    }
  }

  std::string qualified(const std::string& key) const {
    return section_.empty() ? key : section_ + "." + key;
  }
  const json& j_;
  std::string section_, origin_;
  std::set<std::string> seen_;
};

const json& section_of(const json& j, const char* name) {
  static const json empty = json::object();
  auto it = j.find(name);
  return it == j.end() ? empty : *it;
}

void read_model(SectionReader& r, ModelConfig& m) {
  r.get("d_model", m.d_model);
  r.get("n_head", m.n_head);
  r.get("ffn_hidden", m.ffn_hidden);
  r.get("n_layers", m.n_layers);
  r.get("drop_prob", m.drop_prob);
  r.get("max_len", m.max_len);
  r.get("enc_voc_size", m.enc_voc_size);
  r.get("dec_voc_size", m.dec_voc_size);
  r.get("src_pad_idx", m.src_pad_idx);
  r.get("trg_pad_idx", m.trg_pad_idx);
  r.get("trg_sos_idx", m.trg_sos_idx);
  r.get("pre_norm", m.pre_norm);
  r.get("scale_embedding", m.scale_embedding);
  r.get("share_embeddings", m.share_embeddings);
  r.get("tie_output", m.tie_output);
  r.get("learned_positions", m.learned_positions);
  r.get("norm_eps", m.norm_eps);
  r.get("source_bos", m.source_bos);
  r.get("source_eos", m.source_eos);
  r.get("attention_dropout", m.attention_dropout);
  r.get("activation", m.activation);
  r.get("start_from_zero_embedding", m.start_from_zero_embedding);
  double activation_dropout = 0;
  if (r.get("activation_dropout", activation_dropout)) m.activation_dropout = activation_dropout;
}

}  // namespace

ModelConfig model_config_from_json(const json& j, const std::string& origin) {
  ModelConfig m;
  SectionReader r(j, "model", origin);
  read_model(r, m);
  r.reject_unknown();
  return m;
}

namespace {

DataConfig data_config_from_json(const json& section, const std::string& origin) {
  DataConfig out;
  SectionReader d(section, "data", origin);
  d.get("train_src", out.train_src);
  d.get("train_tgt", out.train_tgt);
  d.get("valid_src", out.valid_src);
  d.get("valid_tgt", out.valid_tgt);
  d.get("src_lang", out.src_lang);
  d.get("tgt_lang", out.tgt_lang);
  d.get("max_len", out.max_len);
  d.get("max_len_ratio", out.max_len_ratio);
  d.get("drop_identical", out.drop_identical);
  d.get("drop_duplicates", out.drop_duplicates);
  d.get("cache_dir", out.cache_dir);
  d.get("target_language_tags", out.target_language_tags);
  json target_tags = json::object();
  if (d.get("target_tags", target_tags)) {
    try {
      out.target_tags = target_tags.get<std::map<std::string, std::string>>();
    } catch (const json::exception&) {
      throw UsageError("Config key 'data.target_tags' in " + origin + " must map language codes to tags ({\"deu\": \">>deu<<\"}).");
    }
  }
  json corpora = json::array();
  if (d.get("corpora", corpora)) {
    if (!corpora.is_array()) throw UsageError("Config key 'data.corpora' in " + origin + " must be a list of {\"src\", \"tgt\", \"weight\", \"tag\"}.");
    for (size_t i = 0; i < corpora.size(); ++i) {
      CorpusConfig c;
      SectionReader r(corpora[i], "data.corpora[" + std::to_string(i) + "]", origin);
      r.get("src", c.src);
      r.get("tgt", c.tgt);
      r.get("weight", c.weight);
      r.get("tag", c.tag);
      r.get("src_lang", c.src_lang);
      r.get("tgt_lang", c.tgt_lang);
      r.reject_unknown();
      out.corpora.push_back(c);
    }
  }
  d.reject_unknown();
  return out;
}

VocabConfig vocab_config_from_json(const json& section, const std::string& origin) {
  VocabConfig out;
  SectionReader v(section, "vocab", origin);
  v.get("model", out.model);
  v.get("size", out.size);
  v.get("type", out.type);
  v.get("joint", out.joint);
  v.get("max_train_lines", out.max_train_lines);
  v.reject_unknown();
  return out;
}

TrainConfig train_config_from_json(const json& section, const std::string& origin) {
  TrainConfig out;
  SectionReader t(section, "train", origin);
  t.get("batch_tokens", out.batch_tokens);
  t.get("epochs", out.epochs);
  t.get("max_steps", out.max_steps);
  t.get("max_minutes", out.max_minutes);
  t.get("max_target_tokens", out.max_target_tokens);
  t.get("lr", out.lr);
  t.get("schedule", out.schedule);
  t.get("warmup_steps", out.warmup_steps);
  t.get("cooldown", out.cooldown);
  t.get("label_smoothing", out.label_smoothing);
  t.get("clip", out.clip);
  t.get("weight_decay", out.weight_decay);
  t.get("accum_steps", out.accum_steps);
  t.get("seed", out.seed);
  t.get("threads", out.threads);
  t.get("device", out.device);
  t.get("adam_beta1", out.adam_beta1);
  t.get("adam_beta2", out.adam_beta2);
  t.get("adam_eps", out.adam_eps);
  t.get("plateau_factor", out.plateau_factor);
  t.get("plateau_patience", out.plateau_patience);
  t.get("precision", out.precision);
  // Before train.precision, mixed_precision (bool) switched bf16 on CUDA;
  // configs and model directories of that time still load.
  bool legacy_mixed_precision = true;
  if (t.get("mixed_precision", legacy_mixed_precision) && !legacy_mixed_precision &&
      !section.contains("precision")) {
    out.precision = "fp32";
  }
  t.get("log_every_steps", out.log_every_steps);
  t.get("max_bad_steps", out.max_bad_steps);
  t.reject_unknown();
  return out;
}

CheckpointConfig checkpoint_config_from_json(const json& section, const std::string& origin) {
  CheckpointConfig out;
  SectionReader k(section, "checkpoint", origin);
  k.get("every_steps", out.every_steps);
  k.get("keep_last", out.keep_last);
  k.get("average_last", out.average_last);
  k.reject_unknown();
  return out;
}

ValidConfig valid_config_from_json(const json& section, const std::string& origin) {
  ValidConfig out;
  SectionReader s(section, "valid", origin);
  s.get("every_steps", out.every_steps);
  s.get("bleu", out.bleu);
  s.get("beam", out.beam);
  s.get("final_beam", out.final_beam);
  s.get("length_penalty", out.length_penalty);
  s.get("early_stop_patience", out.early_stop_patience);
  s.get("max_sentences", out.max_sentences);
  s.get_whole_numbers("tune_beams", out.tune_beams);
  s.get("tune_length_penalties", out.tune_length_penalties);
  s.reject_unknown();
  return out;
}

}  // namespace

Config config_from_json(const json& j, const std::string& origin) {
  if (!j.is_object()) throw UsageError("Config in " + origin + " must be a JSON object.");
  static const std::set<std::string> sections = {"data", "vocab", "model", "train", "checkpoint", "valid"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!sections.count(it.key())) {
      throw UsageError("Unknown config key '" + it.key() + "' in " + origin + ".");
    }
  }
  Config c;
  c.data = data_config_from_json(section_of(j, "data"), origin);
  c.vocab = vocab_config_from_json(section_of(j, "vocab"), origin);
  c.model = model_config_from_json(section_of(j, "model"), origin);
  c.train = train_config_from_json(section_of(j, "train"), origin);
  c.checkpoint = checkpoint_config_from_json(section_of(j, "checkpoint"), origin);
  c.valid = valid_config_from_json(section_of(j, "valid"), origin);
  return c;
}

json model_config_to_json(const ModelConfig& m) {
  return json{{"d_model", m.d_model},
              {"n_head", m.n_head},
              {"ffn_hidden", m.ffn_hidden},
              {"n_layers", m.n_layers},
              {"drop_prob", m.drop_prob},
              {"max_len", m.max_len},
              {"enc_voc_size", m.enc_voc_size},
              {"dec_voc_size", m.dec_voc_size},
              {"src_pad_idx", m.src_pad_idx},
              {"trg_pad_idx", m.trg_pad_idx},
              {"trg_sos_idx", m.trg_sos_idx},
              {"pre_norm", m.pre_norm},
              {"scale_embedding", m.scale_embedding},
              {"share_embeddings", m.share_embeddings},
              {"tie_output", m.tie_output},
              {"learned_positions", m.learned_positions},
              {"norm_eps", m.norm_eps},
              {"source_bos", m.source_bos},
              {"source_eos", m.source_eos},
              {"attention_dropout", m.attention_dropout},
              {"activation", m.activation},
              {"start_from_zero_embedding", m.start_from_zero_embedding},
              {"activation_dropout", m.activation_dropout ? json(*m.activation_dropout) : json(nullptr)}};
}

bool same_architecture(const ModelConfig& a, const ModelConfig& b) {
  return model_config_to_json(a) == model_config_to_json(b);
}

json config_to_json(const Config& c) {
  json j;
  j["data"] = {{"train_src", c.data.train_src},     {"train_tgt", c.data.train_tgt},
               {"valid_src", c.data.valid_src},     {"valid_tgt", c.data.valid_tgt},
               {"src_lang", c.data.src_lang},       {"tgt_lang", c.data.tgt_lang},
               {"max_len", c.data.max_len},         {"max_len_ratio", c.data.max_len_ratio},
               {"drop_identical", c.data.drop_identical}, {"drop_duplicates", c.data.drop_duplicates},
               {"cache_dir", c.data.cache_dir}, {"target_language_tags", c.data.target_language_tags}};
  if (!c.data.target_tags.empty()) j["data"]["target_tags"] = c.data.target_tags;
  if (!c.data.corpora.empty()) {
    json corpora = json::array();
    for (const CorpusConfig& k : c.data.corpora) {
      corpora.push_back({{"src", k.src},     {"tgt", k.tgt},           {"weight", k.weight},
                         {"tag", k.tag},     {"src_lang", k.src_lang}, {"tgt_lang", k.tgt_lang}});
    }
    j["data"]["corpora"] = corpora;
  }
  j["vocab"] = {{"model", c.vocab.model},
                {"size", c.vocab.size},
                {"type", c.vocab.type},
                {"joint", c.vocab.joint},
                {"max_train_lines", c.vocab.max_train_lines}};
  j["model"] = model_config_to_json(c.model);
  const TrainConfig& t = c.train;
  j["train"] = {{"batch_tokens", t.batch_tokens},
                {"epochs", t.epochs},
                {"max_steps", t.max_steps},
                {"max_minutes", t.max_minutes},
                {"max_target_tokens", t.max_target_tokens},
                {"lr", t.lr},
                {"schedule", t.schedule},
                {"warmup_steps", t.warmup_steps},
                {"cooldown", t.cooldown},
                {"label_smoothing", t.label_smoothing},
                {"clip", t.clip},
                {"weight_decay", t.weight_decay},
                {"accum_steps", t.accum_steps},
                {"seed", t.seed},
                {"threads", t.threads},
                {"device", t.device},
                {"adam_beta1", t.adam_beta1},
                {"adam_beta2", t.adam_beta2},
                {"adam_eps", t.adam_eps},
                {"plateau_factor", t.plateau_factor},
                {"plateau_patience", t.plateau_patience},
                {"precision", t.precision},
                {"log_every_steps", t.log_every_steps},
                {"max_bad_steps", t.max_bad_steps}};
  j["checkpoint"] = {{"every_steps", c.checkpoint.every_steps},
                     {"keep_last", c.checkpoint.keep_last},
                     {"average_last", c.checkpoint.average_last}};
  j["valid"] = {{"every_steps", c.valid.every_steps},
                {"bleu", c.valid.bleu},
                {"beam", c.valid.beam},
                {"final_beam", c.valid.final_beam},
                {"length_penalty", c.valid.length_penalty},
                {"early_stop_patience", c.valid.early_stop_patience},
                {"max_sentences", c.valid.max_sentences},
                {"tune_beams", c.valid.tune_beams},
                {"tune_length_penalties", c.valid.tune_length_penalties}};
  return j;
}

ModelConfig reference_model_config(const json& j, const std::string& origin) {
  ModelConfig m;
  SectionReader r(j, "", origin);
  r.get("src_pad_idx", m.src_pad_idx);
  r.get("trg_pad_idx", m.trg_pad_idx);
  r.get("trg_sos_idx", m.trg_sos_idx);
  r.get("enc_voc_size", m.enc_voc_size);
  r.get("dec_voc_size", m.dec_voc_size);
  r.get("d_model", m.d_model);
  r.get("n_head", m.n_head);
  r.get("max_len", m.max_len);
  r.get("ffn_hidden", m.ffn_hidden);
  r.get("n_layers", m.n_layers);
  r.get("drop_prob", m.drop_prob);
  std::string device;
  r.get("device", device);  // the reference passes one; we place modules ourselves
  r.reject_unknown();
  m.validate();
  return m;
}

}  // namespace nmt
