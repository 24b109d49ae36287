// The run configuration: plain structs with defaults and validate().
// JSON conversion lives in config_json.cpp and nowhere else; code below the
// executables reads these structs, never string-keyed options.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace nmt {

// One training corpus of several (data.corpora).
struct CorpusConfig {
  std::string src, tgt;  // plain or .gz, line i of src aligned to line i of tgt
  double weight = 1;     // its share of each epoch's pairs, against the others' weights (data/corpus_mix.h)
  std::string tag;       // a token put before each of its source sentences (e.g. "<BT>"); "": none
  // Its languages' codes; "": from the files' names (train.de.gz -> de).
  std::string src_lang, tgt_lang;
};

struct DataConfig {
  std::string train_src, train_tgt;  // one corpus, or:
  std::vector<CorpusConfig> corpora;  // several, with weights and tags
  std::string valid_src, valid_tgt;  // optional
  // Language codes of the pair (e.g. "de", "en"), which the server answers
  // for; empty: taken from the (first) training files' names (train.de.gz -> de).
  std::string src_lang, tgt_lang;
  // True: every corpus's tag names its target language (e.g. "<2en>"), and
  // the model translates each corpus's pair, the tag of the wanted target
  // put after sos (data/language_tags.h). False: tags mark kinds of data
  // (e.g. "<BT>") and translation puts none.
  bool target_language_tags = false;
  // A multilingual model from elsewhere (Marian's OPUS-MT): each target
  // language's tag, put before the source to ask for it ({"deu": ">>deu<<"});
  // the source language is src_lang. Empty for models trained here.
  std::map<std::string, std::string> target_tags;
  int64_t max_len = 128;             // subword tokens per side, before sos/eos
  double max_len_ratio = 3.0;        // longer/shorter side, in tokens; <= 0 disables
  bool drop_identical = false;       // drop pairs whose sides are the same text
  bool drop_duplicates = false;      // keep the first of equal pairs within a corpus (16-32 bytes a distinct pair while encoding)
  // Where encoded corpora (and trained vocabularies) are kept, keyed by the
  // files and settings, to be shared by runs; empty: OUT/data_cache.
  std::string cache_dir;
  // data.corpora, or the one corpus of train_src/train_tgt (weight 1, no tag).
  std::vector<CorpusConfig> training_corpora() const;
  // The tags of the corpora, each once, in order.
  std::vector<std::string> tags() const;
  // cache_dir, or OUT/data_cache.
  std::string cache_dir_in(const std::string& out_dir) const;
  void validate() const;
};

struct VocabConfig {
  std::string model;            // an existing SentencePiece model used as is
  int64_t size = 8000;          // pieces per model when trained here
  std::string type = "bpe";     // bpe | unigram
  bool joint = true;            // one model for both sides
  int64_t max_train_lines = 2000000;  // sentences sampled to train it
  void validate() const;
};

struct ModelConfig {
  // The reference's constructor arguments.
  int64_t d_model = 512;
  int64_t n_head = 8;
  int64_t ffn_hidden = 2048;
  int64_t n_layers = 6;
  double drop_prob = 0.1;
  int64_t max_len = 256;  // rows of the positional table
  // Filled from the vocabulary (or the reference's config.json).
  int64_t enc_voc_size = 0;
  int64_t dec_voc_size = 0;
  int64_t src_pad_idx = 1;
  int64_t trg_pad_idx = 1;
  int64_t trg_sos_idx = 2;
  // Options beyond the reference; the defaults keep its arithmetic.
  bool pre_norm = false;            // Pre-LN instead of Post-LN
  bool scale_embedding = false;     // multiply token embeddings by sqrt(d_model)
  bool share_embeddings = false;    // encoder and decoder share one table (joint vocab)
  bool tie_output = false;          // output projection uses the decoder embedding
  bool learned_positions = false;   // trained position table instead of sinusoids
  // Epsilon of every LayerNorm: the reference's 1e-12; models imported from
  // other engines keep theirs (CTranslate2's and OpenNMT's 1e-6, Marian's 1e-6).
  double norm_eps = 1e-12;
  // Whether a source sentence is wrapped in sos ... eos, as the reference
  // wraps it; CTranslate2's and OpenNMT-py's models read the bare tokens,
  // fairseq's and Marian's end them with eos.
  bool source_bos = true;
  bool source_eos = true;
  int64_t source_ends() const { return (source_bos ? 1 : 0) + (source_eos ? 1 : 0); }  // sos and eos put around a source
  // The feed-forward's activation: "relu" (the reference's), or what a model
  // from another engine uses: "gelu" (erf), "gelu_tanh", "gelu_sigmoid"
  // (x * sigmoid(1.702 x)), "swish" (Marian's).
  std::string activation = "relu";
  // The decoder's first position reads a zero vector instead of its start
  // token's embedding (Marian's models; CTranslate2's start_from_zero_embedding).
  bool start_from_zero_embedding = false;
  // Dropout on the attention weights (after softmax); the reference has none.
  double attention_dropout = 0.0;
  // Dropout after the feed-forward ReLU. Unset: drop_prob, which is what the
  // reference applies there.
  std::optional<double> activation_dropout;
  double ffn_dropout() const { return activation_dropout.value_or(drop_prob); }
  void validate() const;
};

struct TrainConfig {
  int64_t batch_tokens = 4096;   // padded cells per batch, per side
  int64_t epochs = 10;
  int64_t max_steps = 0;         // 0: no limit
  double max_minutes = 0;        // wall-clock budget for training (validation included); 0: none
  // Budget in target tokens processed (every rank's batches counted): the
  // step that reaches it is the last; 0: none. Means the same on every machine.
  int64_t max_target_tokens = 0;
  double lr = 1.0;               // noam: multiplier of the paper's formula; others: the peak rate
  std::string schedule = "noam";  // noam | inverse_sqrt | plateau | constant
  int64_t warmup_steps = 4000;
  // Share of the budget (train.max_target_tokens, else train.max_steps) at
  // whose end the schedule's rate falls linearly to zero; 0: no cool-down.
  double cooldown = 0.0;
  double label_smoothing = 0.1;
  double clip = 1.0;             // max gradient norm; <= 0 disables
  double weight_decay = 0.0;
  int64_t accum_steps = 1;
  int64_t seed = 1234;
  int64_t threads = 0;           // 0: all cores
  std::string device = "auto";   // auto | cpu | cuda
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.98;
  double adam_eps = 1e-9;
  double plateau_factor = 0.9;
  int64_t plateau_patience = 10;
  std::string precision = "auto";  // fp32 | bf16 | auto (bf16 where the device runs it fast)
  int64_t log_every_steps = 50;
  int64_t max_bad_steps = 20;    // consecutive non-finite losses before giving up
  void validate() const;
};

struct CheckpointConfig {
  int64_t every_steps = 1000;
  int64_t keep_last = 3;
  int64_t average_last = 0;  // > 0: checkpoints/average.pt, the mean of the newest N step checkpoints
  void validate() const;
};

struct ValidConfig {
  int64_t every_steps = 1000;
  bool bleu = true;
  int64_t beam = 4;                 // while training (1, greedy, is cheapest)
  int64_t final_beam = 0;           // for best.pt and average.pt at the end; 0: same as beam
  double length_penalty = 0.6;      // GNMT alpha, as the translator's --length-penalty
  int64_t early_stop_patience = 0;  // validations without improvement; 0 disables
  int64_t max_sentences = 0;        // decode at most this many for BLEU; 0: all
  // At the end, with valid.bleu: every beam x length penalty here decodes the
  // validation set with the chosen checkpoint, and the best pair goes to
  // DIR/decoding.json for the translator. Either list empty: no tuning.
  std::vector<int64_t> tune_beams{4, 5};
  std::vector<double> tune_length_penalties{0.6, 1.0, 1.5};
  int64_t beam_at_end() const { return final_beam > 0 ? final_beam : beam; }
  void validate() const;
};

struct Config {
  DataConfig data;
  VocabConfig vocab;
  ModelConfig model;
  TrainConfig train;
  CheckpointConfig checkpoint;
  ValidConfig valid;
  void validate() const;
};

// JSON <-> struct. Unknown keys and wrong types throw UsageError naming the key
// and `origin` (the file the JSON came from).
Config config_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json config_to_json(const Config& config);
ModelConfig model_config_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json model_config_to_json(const ModelConfig& config);

// True when two model configs describe the same network: every field agrees,
// dropout and vocabulary sizes included, so a resumed run or a loaded model is
// exactly the one that was trained.
bool same_architecture(const ModelConfig& a, const ModelConfig& b);

// Reads a config file; malformed JSON is a UsageError naming the file and line.
nlohmann::json read_json_file(const std::string& path);

// Applies `--set a.b.c=VALUE` (VALUE parsed as JSON, else taken as a string).
void apply_override(nlohmann::json& j, const std::string& assignment);

// Reads the reference's constructor arguments (fixtures' config.json).
ModelConfig reference_model_config(const nlohmann::json& j, const std::string& origin);

}  // namespace nmt
