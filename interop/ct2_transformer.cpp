#include "interop/ct2_transformer.h"

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "interop/ct2_model_file.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::interop {
namespace fs = std::filesystem;
namespace {

constexpr int64_t kGeneratedPositions = 1024;  // rows of a generated table: longest sentence, in tokens
constexpr double kCt2NormEps = 1e-5;           // CTranslate2's LayerNorm (with a beta) unless config.json says

// "The CTranslate2 model PATH" (or the engine whose model was renamed into one).
std::string named(const Ct2ModelFile& f) { return "The " + f.engine + " model " + f.path; }

[[noreturn]] void unsupported(const Ct2ModelFile& f, const std::string& what) {
  throw DataError(named(f) + " uses " + what + ", which this program cannot run yet.");
}

// An attribute's value as written: "2", or "0.5" (a hostile file may hold any float).
std::string number(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? std::to_string(static_cast<int64_t>(v)) : std::to_string(v);
}

// The first of `names` the file holds; empty when none.
std::string first_of(const Ct2ModelFile& f, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (f.has(n)) return n;
  }
  return {};
}

// CTranslate2's generated sinusoids: row p (the p-th token, from 0) holds
// sin((p + 1) * r_i) for i < d/2, then cos((p + 1) * r_i), with
// r_i = exp(-i * ln(10000) / (d/2 - 1)), in float32: positions count from 1.
torch::Tensor ct2_sinusoids(int64_t rows, int64_t d) {
  const int64_t half = d / 2;
  const float increment = std::log(10000.0f) / static_cast<float>(half - 1);
  auto inv = torch::exp(torch::arange(half, torch::kFloat) * -increment);
  auto t = torch::arange(1, rows + 1, torch::kFloat).unsqueeze(1) * inv.unsqueeze(0);
  return torch::cat({torch::sin(t), torch::cos(t)}, 1).contiguous();
}

// An attribute of one stack: SIDE/NAME, else the model-wide NAME that files
// before spec revision 5 hold, else `fallback`.
double attribute(const Ct2ModelFile& f, const std::string& side, const std::string& name, double fallback) {
  return f.scalar(side + "/" + name, f.scalar(name, fallback));
}

// Heads where the file does not say: by the spec's name, as CTranslate2 reads it.
double default_heads(const Ct2ModelFile& f) { return f.spec == "TransformerBig" ? 16 : 8; }

// Whether a stack scales its embeddings by sqrt(d_model): CTranslate2's
// scale_embeddings (an int8 flag, or a float factor), or the older
// embeddings/multiply_by_sqrt_depth; by default it does. A factor other than
// sqrt(d_model) is refused.
bool scales_embeddings(const Ct2ModelFile& f, const std::string& side, int64_t d_model) {
  std::string name = side + "/scale_embeddings";
  if (!f.has(name)) name = side + "/embeddings/multiply_by_sqrt_depth";
  if (!f.has(name)) return true;
  const torch::Tensor& v = f.raw(name);
  const double value = f.scalar(name, 1);
  if (v.scalar_type() == torch::kChar) return value != 0;
  if (value == 1.0) return false;
  if (static_cast<float>(value) == std::sqrt(static_cast<float>(d_model))) return true;
  unsupported(f, name + " " + number(value) + " (an embedding scale other than sqrt(d_model))");
}

// rows of `t` extended to `rows` with `fill` (tokens the vocabulary appends,
// which the weights do not have).
torch::Tensor with_rows(const torch::Tensor& t, int64_t rows, float fill) {
  if (t.size(0) == rows) return t;
  auto extra = torch::full({rows - t.size(0)}, fill);
  if (t.dim() == 2) extra = torch::full({rows - t.size(0), t.size(1)}, fill);
  return torch::cat({t, extra}, 0);
}

class SpecReader {
 public:
  SpecReader(const Ct2ModelFile& f, ImportedModel& out) : f_(f), out_(out) {}

  torch::Tensor w(const std::string& name) const { return f_.float32(name).contiguous(); }

  void norm(const std::string& from, const std::string& to) {
    out_.weights[to + ".gamma"] = w(from + "/gamma");
    out_.weights[to + ".beta"] = w(from + "/beta");
  }
  void linear(const std::string& from, const std::string& to) {
    out_.weights[to + ".weight"] = w(from + "/weight");
    out_.weights[to + ".bias"] = bias(from, out_.weights[to + ".weight"].size(0));
  }
  // A fused projection's parts: rows [k*d, (k+1)*d) of `from` into each of `to`.
  void fused(const std::string& from, const std::vector<std::string>& to, int64_t d) {
    const auto weight = w(from + "/weight");
    const auto b = bias(from, weight.size(0));
    if (weight.size(0) != d * static_cast<int64_t>(to.size())) {
      throw DataError(named(f_) + " has " + from + " of " + std::to_string(weight.size(0)) +
                      " rows; " + std::to_string(d * static_cast<int64_t>(to.size())) + " expected.");
    }
    for (size_t k = 0; k < to.size(); ++k) {
      out_.weights[to[k] + ".weight"] = weight.narrow(0, static_cast<int64_t>(k) * d, d).contiguous();
      out_.weights[to[k] + ".bias"] = b.narrow(0, static_cast<int64_t>(k) * d, d).contiguous();
    }
  }
  void attention_sublayer(const std::string& from, const std::string& to, const std::string& norm_to, int64_t d,
                          bool cross) {
    norm(from + "/layer_norm", norm_to);
    if (cross) {
      linear(from + "/linear_0", to + ".w_q");
      fused(from + "/linear_1", {to + ".w_k", to + ".w_v"}, d);
      linear(from + "/linear_2", to + ".w_concat");
    } else {
      fused(from + "/linear_0", {to + ".w_q", to + ".w_k", to + ".w_v"}, d);
      linear(from + "/linear_1", to + ".w_concat");
    }
  }
  void ffn(const std::string& from, const std::string& to, const std::string& norm_to) {
    norm(from + "/layer_norm", norm_to);
    linear(from + "/linear_0", to + ".linear1");
    linear(from + "/linear_1", to + ".linear2");
  }

 private:
  torch::Tensor bias(const std::string& from, int64_t rows) const {
    return f_.has(from + "/bias") ? w(from + "/bias") : torch::zeros({rows});
  }
  const Ct2ModelFile& f_;
  ImportedModel& out_;
};

template <typename T>
T config_value(const nlohmann::json& c, const char* key, T fallback, const fs::path& dir) {
  const auto it = c.find(key);
  if (it == c.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw DataError("The CTranslate2 configuration " + (dir / "config.json").string() + " has a " + key +
                    " of the wrong type: " + it->dump() + ".");
  }
}

void check_supported(const Ct2ModelFile& f, const nlohmann::json& config) {
  if (f.version >= 2 && f.spec != "TransformerSpec" && f.spec != "TransformerBase" && f.spec != "TransformerBig") {
    unsupported(f, "the spec " + f.spec + " (TransformerSpec, TransformerBase and TransformerBig, encoder-decoder "
                        "translation models, run here)");
  }
  for (const char* side : {"encoder", "decoder"}) {
    const std::string s = side;
    const double activation = attribute(f, s, "activation", 0);
    if (ct2_activation_name(activation).empty()) {
      unsupported(f, s + "/activation " + number(activation) +
                              " (ReLU 0, GELUTanh 1, Swish 2, GELU 3 and GELUSigmoid 4 run here)");
    }
    if (f.has(s + "/embeddings_1/weight")) unsupported(f, "several source embeddings (source features)");
    if (f.has(s + "/layer_0/self_attention/num_heads_kv") || f.has(s + "/layer_0/self_attention/head_dim")) {
      unsupported(f, "grouped or multi-query attention, or heads of their own width");
    }
    if (f.has(s + "/layer_0/self_attention/rotary_dim") || f.scalar(s + "/alibi", 0) != 0) {
      unsupported(f, "rotary or ALiBi positions");
    }
    if (f.has(s + "/layer_0/self_attention/queries_scale")) unsupported(f, "a query scale of its own");
    if (f.has(s + "/layernorm_embedding/gamma")) unsupported(f, "a layer norm of the embeddings (layernorm_embedding)");
    if (f.has(s + "/layer_0/self_attention/relative_position_keys") ||
        f.has(s + "/layer_0/self_attention/relative_attention_bias")) {
      unsupported(f, "relative positions");
    }
    if (f.has(s + "/layer_0/ffn/linear_0_noact/weight")) unsupported(f, "gated feed-forward layers (ffn_glu)");
  }
  if (attribute(f, "encoder", "activation", 0) != attribute(f, "decoder", "activation", 0)) {
    unsupported(f, "activations that differ between encoder and decoder");
  }
  for (const char* name : {"decoder/scale_outputs", "decoder/final_logit_softcapping", "decoder/sliding_window"}) {
    if (f.has(name)) unsupported(f, name);
  }
  if (f.has("decoder/project_in/weight")) unsupported(f, "decoder projections in and out (project_in_out)");
  if (config.value("multi_query_attention", false)) unsupported(f, "multi-query attention");
  if (attribute(f, "encoder", "num_heads", default_heads(f)) != attribute(f, "decoder", "num_heads", default_heads(f))) {
    unsupported(f, "head counts that differ between encoder and decoder");
  }
  if (attribute(f, "encoder", "pre_norm", 1) != attribute(f, "decoder", "pre_norm", 1)) {
    unsupported(f, "pre-norm in one stack and post-norm in the other");
  }
}

int64_t count_layers(const Ct2ModelFile& f, const std::string& side) {
  int64_t n = 0;
  while (f.has(side + "/layer_" + std::to_string(n) + "/ffn/linear_0/weight")) ++n;
  if (n == 0) throw DataError(named(f) + " has no " + side + " layers.");
  return n;
}

void read_weights(const Ct2ModelFile& f, ImportedModel& out, const vocab::Vocabularies& vocabs) {
  ModelConfig& m = out.model;
  SpecReader r(f, out);
  const std::string enc_emb = first_of(f, {"encoder/embeddings_0/weight", "encoder/embeddings/weight"});
  const std::string dec_emb = first_of(f, {"decoder/embeddings/weight"});
  if (enc_emb.empty() || dec_emb.empty()) {
    throw DataError(named(f) + " has no encoder or decoder embeddings.");
  }
  const auto src_table = r.w(enc_emb), tgt_table = r.w(dec_emb);
  if (src_table.size(0) > vocabs.src->size() || tgt_table.size(0) > vocabs.tgt->size() ||
      src_table.size(0) + 3 < vocabs.src->size() || tgt_table.size(0) + 3 < vocabs.tgt->size()) {
    throw DataError(named(f) + " has embeddings of " + std::to_string(src_table.size(0)) +
                    "/" + std::to_string(tgt_table.size(0)) + " rows but its vocabularies hold " +
                    std::to_string(out.src_tokens.size()) + "/" + std::to_string(out.tgt_tokens.size()) + " tokens.");
  }
  m.d_model = src_table.size(1);
  m.scale_embedding = scales_embeddings(f, "encoder", m.d_model);
  if (scales_embeddings(f, "decoder", m.d_model) != m.scale_embedding) {
    unsupported(f, "embeddings scaled in one stack and not in the other");
  }
  m.n_layers = count_layers(f, "encoder");
  if (count_layers(f, "decoder") != m.n_layers) unsupported(f, "stacks of different depths");
  m.ffn_hidden = r.w("encoder/layer_0/ffn/linear_0/weight").size(0);
  out.weights["encoder.emb.tok_emb.weight"] = with_rows(src_table, vocabs.src->size(), 0.0f);
  out.weights["decoder.emb.tok_emb.weight"] = with_rows(tgt_table, vocabs.tgt->size(), 0.0f);
  // Positions: the stored table, or CTranslate2's generated sinusoids.
  for (const char* side : {"encoder", "decoder"}) {
    const std::string stored = std::string(side) + "/position_encodings/encodings";
    auto table = f.has(stored) ? r.w(stored) : ct2_sinusoids(kGeneratedPositions, m.d_model);
    out.weights[std::string(side) + ".emb.pos_emb.weight"] = table;
  }
  m.max_len = std::min(out.weights["encoder.emb.pos_emb.weight"].size(0), out.weights["decoder.emb.pos_emb.weight"].size(0));
  for (const char* side : {"encoder", "decoder"}) {
    out.weights[std::string(side) + ".emb.pos_emb.weight"] =
        out.weights[std::string(side) + ".emb.pos_emb.weight"].narrow(0, 0, m.max_len).contiguous();
  }
  for (int64_t i = 0; i < m.n_layers; ++i) {
    const std::string e = "encoder/layer_" + std::to_string(i), E = "encoder.layers." + std::to_string(i);
    r.attention_sublayer(e + "/self_attention", E + ".attention", E + ".norm1", m.d_model, false);
    r.ffn(e + "/ffn", E + ".ffn", E + ".norm2");
    const std::string d = "decoder/layer_" + std::to_string(i), D = "decoder.layers." + std::to_string(i);
    r.attention_sublayer(d + "/self_attention", D + ".self_attention", D + ".norm1", m.d_model, false);
    r.attention_sublayer(d + "/attention", D + ".enc_dec_attention", D + ".norm2", m.d_model, true);
    r.ffn(d + "/ffn", D + ".ffn", D + ".norm3");
  }
  if (m.pre_norm) {
    if (!f.has("encoder/layer_norm/gamma") || !f.has("decoder/layer_norm/gamma")) {
      unsupported(f, "pre-norm without a final layer norm (no_final_norm)");
    }
    r.norm("encoder/layer_norm", "encoder.norm");
    r.norm("decoder/layer_norm", "decoder.norm");
  }
  // The projection: rows of tokens the vocabulary appended can never win.
  out.weights["decoder.linear.weight"] = with_rows(r.w("decoder/projection/weight"), vocabs.tgt->size(), 0.0f);
  const auto bias = f.has("decoder/projection/bias") ? r.w("decoder/projection/bias")
                                                     : torch::zeros({out.weights["decoder.linear.weight"].size(0)});
  out.weights["decoder.linear.bias"] = with_rows(bias, vocabs.tgt->size(), -1e9f);
}

// The special tokens and the source's ends: config.json (binary version 6),
// or before it the model's own attributes, as CTranslate2 reads them.
void read_special_tokens(const Ct2ModelFile& f, const nlohmann::json& config, const fs::path& dir, ImportedModel& out) {
  ModelConfig& m = out.model;
  if (f.version >= 6) {
    out.roles.unk = config_value<std::string>(config, "unk_token", "<unk>", dir);
    const std::string bos = config_value<std::string>(config, "bos_token", "<s>", dir);
    out.roles.bos = config_value<std::string>(config, "decoder_start_token", bos, dir);
    out.roles.eos = config_value<std::string>(config, "eos_token", "</s>", dir);
    m.source_bos = config_value<bool>(config, "add_source_bos", false, dir);
    m.source_eos = config_value<bool>(config, "add_source_eos", false, dir);
    if (config.contains("decoder_start_token") && config["decoder_start_token"].is_null()) {
      unsupported(f, "no decoder start token (the caller gives it as a prefix)");
    }
  } else {
    out.roles.unk = f.text("unk_token", "<unk>");
    out.roles.eos = f.text("eos_token", "</s>");
    out.roles.bos = f.scalar("with_target_bos", 1) != 0 ? f.text("bos_token", "<s>") : out.roles.eos;
    m.source_bos = f.scalar("with_source_bos", 0) != 0;
    m.source_eos = f.scalar("with_source_eos", 0) != 0;
    if (f.scalar("user_decoder_start_tokens", 0) != 0) {
      unsupported(f, "no decoder start token (the caller gives it as a prefix)");
    }
  }
  // A decoder that starts from a zero vector reads no start token: one the
  // vocabulary lacks (CTranslate2's "<s>" in a Marian conversion) is appended.
  out.roles.append_bos = f.scalar("decoder/start_from_zero_embedding", 0) != 0;
  if (out.roles.bos == out.roles.eos) unsupported(f, "a decoder that starts from its end token");
}

// How CTranslate2 translates unless told otherwise: beam 2, scores divided
// by length^1 (the end token counted), no end token first, at most 256
// tokens with the end token, a target prefix as it decodes one.
storage::DecodingChoice ct2_decoding() {
  storage::DecodingChoice d;
  d.engine = "CTranslate2";
  d.beam = 2;
  d.length_penalty = 1.0;
  d.length_penalty_form = "power";
  d.min_length = 1;
  d.max_len_a = 0;
  d.max_len_b = 256;
  d.ctranslate2_prefix = true;
  d.checkpoint = "last.pt";
  return d;
}

// The attention that replaces unknown tokens (replace_unknowns): the
// decoder's alignment layer and heads, as CTranslate2 reads them.
void read_alignment(const Ct2ModelFile& f, const ModelConfig& m, storage::DecodingChoice& d) {
  const double layer = f.scalar("decoder/alignment_layer", -1), heads = f.scalar("decoder/alignment_heads", 1);
  const auto layers = static_cast<double>(m.n_layers);
  if (!(layer >= -layers && layer < layers && layer == std::floor(layer))) {
    throw DataError(named(f) + " aligns by decoder layer " + number(layer) + " of " + number(layers) + ".");
  }
  if (!(heads >= 0 && heads <= static_cast<double>(m.n_head) && heads == std::floor(heads))) {
    throw DataError(named(f) + " aligns by " + number(heads) + " heads of " + number(static_cast<double>(m.n_head)) +
                    ".");
  }
  d.alignment_layer = static_cast<int64_t>(layer);
  d.alignment_heads = static_cast<int64_t>(heads);
}

}  // namespace

std::string ct2_activation_name(double id) {
  static const char* const kNames[] = {"relu", "gelu_tanh", "swish", "gelu", "gelu_sigmoid"};
  for (int i = 0; i < 5; ++i) {
    if (id == i) return kNames[i];
  }
  return {};
}

int ct2_activation_id(const std::string& name) {
  for (int i = 0; i < 5; ++i) {
    if (ct2_activation_name(i) == name) return i;
  }
  throw UsageError("The activation \"" + name + "\" has no CTranslate2 counterpart.");
}

void import_ct2_transformer(const Ct2ModelFile& file, const nlohmann::json& config, ImportedModel& out) {
  const fs::path dir = fs::path(file.path).parent_path();
  const std::string& dir_name = out.origin;
  check_supported(file, config);
  out.format = "CTranslate2";
  read_special_tokens(file, config, dir, out);
  const auto vocabs = imported_vocabularies(out);
  ModelConfig& m = out.model;
  const double heads = attribute(file, "encoder", "num_heads", default_heads(file));
  if (!(heads >= 1 && heads <= 4096)) {
    throw DataError(named(file) + " has " + number(heads) + " attention heads.");
  }
  m.n_head = static_cast<int64_t>(heads);
  m.pre_norm = attribute(file, "encoder", "pre_norm", 1) != 0;
  m.activation = ct2_activation_name(attribute(file, "encoder", "activation", 0));
  m.start_from_zero_embedding = file.scalar("decoder/start_from_zero_embedding", 0) != 0;
  m.learned_positions = true;  // the table as stored or generated, held as weights
  m.norm_eps = config_value<double>(config, "layer_norm_epsilon", kCt2NormEps, dir);
  m.drop_prob = 0.1;
  m.enc_voc_size = vocabs.src->size();
  m.dec_voc_size = vocabs.tgt->size();
  m.src_pad_idx = vocabs.src->pad_id();
  m.trg_pad_idx = vocabs.tgt->pad_id();
  m.trg_sos_idx = vocabs.tgt->bos_id();
  try {
    read_weights(file, out, vocabs);
  } catch (const c10::Error& e) {
    // A variable of a shape the spec does not give it.
    throw DataError(named(file) + " has variables of shapes its spec does not allow: " +
                    e.what_without_backtrace());
  }
  out.decoding = ct2_decoding();
  read_alignment(file, m, out.decoding);
  // Shared embeddings and a tied projection (aliases in model.bin) are read
  // as copies of the one table: the same numbers; fine-tuning then trains
  // them apart.
  try {
    m.validate();
  } catch (const UsageError& e) {
    throw DataError("The " + file.engine + " model " + dir_name + " describes a model this program cannot build: " + e.what());
  }
}

}  // namespace nmt::interop
