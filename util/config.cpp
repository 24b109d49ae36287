#include "util/config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/language_code.h"

namespace nmt {
namespace {

using nlohmann::json;

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("Invalid configuration: " + what);
}

}  // namespace

std::vector<CorpusConfig> DataConfig::training_corpora() const {
  if (!corpora.empty()) return corpora;
  return {CorpusConfig{train_src, train_tgt, 1.0, "", "", ""}};
}

std::vector<std::string> DataConfig::tags() const {
  std::vector<std::string> out;
  for (const CorpusConfig& c : corpora) {
    if (!c.tag.empty() && std::find(out.begin(), out.end(), c.tag) == out.end()) out.push_back(c.tag);
  }
  return out;
}

std::string DataConfig::cache_dir_in(const std::string& out_dir) const {
  if (!cache_dir.empty()) return cache_dir;
  return (std::filesystem::path(out_dir) / "data_cache").string();
}

namespace {

std::string normal_path(const std::string& path) {
  std::error_code ec;
  return std::filesystem::absolute(path, ec).lexically_normal().string();
}

void validate_corpora(const std::vector<CorpusConfig>& corpora) {
  for (size_t i = 0; i < corpora.size(); ++i) {
    const CorpusConfig& c = corpora[i];
    const std::string name = "data.corpora[" + std::to_string(i) + "]";
    require(!c.src.empty() && !c.tgt.empty(), name + " needs both \"src\" and \"tgt\".");
    require(c.weight > 0 && std::isfinite(c.weight),
            name + ".weight must be a positive number (got " + std::to_string(c.weight) + ").");
    require(c.tag.find_first_of(" \t\n\r") == std::string::npos,
            name + ".tag must be one token without spaces (got \"" + c.tag + "\").");
    for (const auto& [key, code] : {std::pair{".src_lang", &c.src_lang}, std::pair{".tgt_lang", &c.tgt_lang}}) {
      require(code->empty() || is_language_code(*code),
              name + key + " must be a language code such as \"de\" or \"pt-BR\" (got \"" + *code + "\").");
    }
    for (size_t j = 0; j < i; ++j) {
      require(normal_path(corpora[j].src) != normal_path(c.src) || normal_path(corpora[j].tgt) != normal_path(c.tgt),
              "data.corpora lists " + c.src + " / " + c.tgt + " twice (entries " + std::to_string(j) + " and " +
                  std::to_string(i) + "); list it once and raise its weight instead.");
    }
  }
}

}  // namespace

void DataConfig::validate() const {
  require(corpora.empty() || (train_src.empty() && train_tgt.empty()),
          "data.corpora replaces data.train_src and data.train_tgt; give one or the other.");
  require(!corpora.empty() || (!train_src.empty() && !train_tgt.empty()),
          "data.train_src and data.train_tgt (or data.corpora) must be set.");
  validate_corpora(corpora);
  require(valid_src.empty() == valid_tgt.empty(),
          "data.valid_src and data.valid_tgt must be set together.");
  require(max_len > 0, "data.max_len must be positive (got " + std::to_string(max_len) + ").");
  for (const auto& [key, code] : {std::pair{"data.src_lang", &src_lang}, std::pair{"data.tgt_lang", &tgt_lang}}) {
    require(code->empty() || is_language_code(*code),
            std::string(key) + " must be a language code such as \"de\" or \"pt-BR\" (got \"" + *code + "\").");
  }
}

void VocabConfig::validate() const {
  if (!model.empty()) return;
  require(type == "bpe" || type == "unigram", "vocab.type must be \"bpe\" or \"unigram\" (got \"" + type + "\").");
  require(size >= 16, "vocab.size must be at least 16 (got " + std::to_string(size) + ").");
}

void ModelConfig::validate() const {
  require(d_model > 0 && n_head > 0 && d_model % n_head == 0,
          "model.d_model (" + std::to_string(d_model) + ") must be a positive multiple of model.n_head (" +
              std::to_string(n_head) + ").");
  require(ffn_hidden > 0, "model.ffn_hidden must be positive.");
  require(n_layers > 0, "model.n_layers must be positive.");
  require(drop_prob >= 0.0 && drop_prob < 1.0, "model.drop_prob must lie in [0, 1).");
  require(attention_dropout >= 0.0 && attention_dropout < 1.0, "model.attention_dropout must lie in [0, 1).");
  require(!activation_dropout || (*activation_dropout >= 0.0 && *activation_dropout < 1.0),
          "model.activation_dropout must lie in [0, 1) (or be null: model.drop_prob).");
  require(max_len > 2, "model.max_len must be greater than 2.");
  require(norm_eps > 0 && norm_eps < 1, "model.norm_eps must lie in (0, 1).");
  require(activation == "relu" || activation == "gelu" || activation == "gelu_tanh" || activation == "gelu_sigmoid" ||
              activation == "swish",
          "model.activation must be \"relu\", \"gelu\", \"gelu_tanh\", \"gelu_sigmoid\" or \"swish\" (got \"" +
              activation + "\").");
  require(!share_embeddings || enc_voc_size == dec_voc_size,
          "model.share_embeddings needs one joint vocabulary (encoder and decoder sizes differ).");
}

void TrainConfig::validate() const {
  require(batch_tokens > 0, "train.batch_tokens must be positive.");
  require(epochs > 0 || max_steps > 0, "train.epochs or train.max_steps must be positive.");
  require(lr > 0, "train.lr must be positive.");
  require(schedule == "noam" || schedule == "inverse_sqrt" || schedule == "plateau" || schedule == "constant",
          "train.schedule must be \"noam\", \"inverse_sqrt\", \"plateau\" or \"constant\" (got \"" + schedule +
              "\").");
  require(schedule != "inverse_sqrt" || warmup_steps > 0, "train.schedule \"inverse_sqrt\" needs train.warmup_steps > 0.");
  require(max_minutes >= 0, "train.max_minutes must not be negative (0: no time limit).");
  require(max_target_tokens >= 0, "train.max_target_tokens must not be negative (0: no token budget; got " +
                                      std::to_string(max_target_tokens) + ").");
  require(warmup_steps >= 0, "train.warmup_steps must not be negative.");
  require(cooldown >= 0 && cooldown < 1, "train.cooldown must lie in [0, 1) (got " + std::to_string(cooldown) + ").");
  require(cooldown == 0 || max_target_tokens > 0 || max_steps > 0,
          "train.cooldown needs a budget whose end is known in advance: train.max_target_tokens or train.max_steps.");
  require(label_smoothing >= 0 && label_smoothing < 1, "train.label_smoothing must lie in [0, 1).");
  require(accum_steps >= 1, "train.accum_steps must be at least 1.");
  require(threads >= 0, "train.threads must not be negative.");
  require(device == "auto" || device == "cpu" || device == "cuda",
          "train.device must be \"auto\", \"cpu\" or \"cuda\" (got \"" + device + "\").");
  require(precision == "auto" || precision == "fp32" || precision == "bf16",
          "train.precision must be \"fp32\", \"bf16\" or \"auto\" (got \"" + precision + "\").");
}

void CheckpointConfig::validate() const {
  require(every_steps > 0, "checkpoint.every_steps must be positive.");
  require(keep_last >= 1, "checkpoint.keep_last must be at least 1.");
  require(average_last >= 0, "checkpoint.average_last must not be negative (0: no averaging).");
}

void ValidConfig::validate() const {
  require(every_steps > 0, "valid.every_steps must be positive.");
  require(beam >= 1, "valid.beam must be at least 1.");
  require(final_beam >= 0, "valid.final_beam must not be negative (0: valid.beam).");
  require(length_penalty >= 0, "valid.length_penalty must not be negative.");
  require(early_stop_patience >= 0, "valid.early_stop_patience must not be negative.");
  for (int64_t b : tune_beams) require(b >= 1 && b <= 64, "valid.tune_beams must hold beams from 1 to 64.");
  for (double lp : tune_length_penalties) {
    require(std::isfinite(lp) && lp >= 0, "valid.tune_length_penalties must hold non-negative numbers.");
  }
}

void Config::validate() const {
  data.validate();
  vocab.validate();
  model.validate();
  train.validate();
  checkpoint.validate();
  valid.validate();
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("Cannot read config file " + path + ".");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::parse_error& e) {
    // e.byte is the offset of the error; turn it into a line number.
    const std::string text = ss.str();
    size_t upto = std::min<size_t>(e.byte, text.size());
    long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n');
    throw UsageError("Malformed JSON in " + path + " at line " + std::to_string(line) + ": " + e.what());
  } catch (const json::out_of_range& e) {  // a number like 6e4748 (found by config_fuzz)
    throw UsageError("Malformed JSON in " + path + ": " + e.what());
  }
}

void apply_override(json& j, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw UsageError("--set expects KEY=VALUE with a dotted key, e.g. train.epochs=3 (got '" + assignment + "').");
  }
  std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  try {
    value = json::parse(text);
  } catch (const json::out_of_range& e) {  // 6e4748 (found by config_fuzz)
    throw UsageError("--set " + assignment.substr(0, eq) + ": " + e.what());
  } catch (const json::parse_error&) {
    value = text;  // bare strings need no quotes on the command line
    try {
      value.dump();  // JSON text is UTF-8; the JSON parser saw to that for quoted values
    } catch (const json::type_error&) {
      throw UsageError("--set " + assignment.substr(0, eq) + ": the value is not valid UTF-8.");
    }
  }
  std::stringstream parts(key);
  std::string part;
  std::vector<std::string> path;
  while (std::getline(parts, part, '.')) path.push_back(part);
  if (!j.is_object()) throw UsageError("--set " + key + ": the config is not a JSON object.");
  json* node = &j;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    json& child = (*node)[path[i]];
    if (child.is_null()) child = json::object();
    // (train.precision="" then train.precision.x=1 reached here with a string; found by config_fuzz)
    if (!child.is_object()) throw UsageError("--set " + key + ": '" + path[i] + "' is not a section.");
    node = &child;
  }
  (*node)[path.back()] = value;
}

}  // namespace nmt
