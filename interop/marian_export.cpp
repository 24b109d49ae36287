#include "interop/marian_export.h"

#include <cstring>
#include <filesystem>
#include <map>

#include <torch/torch.h>
#include <yaml-cpp/yaml.h>

#include "interop/marian_model.h"
#include "interop/npz_file.h"
#include "storage/state_dict.h"
#include "util/atomic_directory.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "vocab/token_list_vocab.h"

namespace nmt::interop {
namespace fs = std::filesystem;
namespace {

// What Marian cannot compute of `m`, in words; empty when it can.
std::string what_marian_lacks(const ModelConfig& m) {
  if (!m.start_from_zero_embedding) return "a decoder that reads its start token's embedding (Marian's starts from zeros)";
  if (!m.scale_embedding) return "embeddings not scaled by sqrt(d_model) (Marian's always are)";
  if (m.source_bos || !m.source_eos) return "sources not ended by </s> alone (Marian's are)";
  if (m.activation != "relu" && m.activation != "swish" && m.activation != "gelu_sigmoid") {
    return "the activation " + m.activation + " (Marian has relu, swish and gelu, the sigmoid form)";
  }
  return {};
}

// Our weights under Marian's names: W [in, out] and biases and norms [1, n].
class MarianWriter {
 public:
  MarianWriter(const storage::StateDict& ours, bool pre_norm) : ours_(ours), pre_norm_(pre_norm) {}

  const torch::Tensor& ours(const std::string& name) const {
    const auto it = ours_.find(name);
    if (it == ours_.end()) throw DataError("The model has no weight " + name + " to export.");
    return it->second;
  }
  void put(const std::string& name, const torch::Tensor& t) {
    arrays[name] = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
  }
  void row(const std::string& name, const torch::Tensor& t) { put(name, t.reshape({1, -1})); }
  void linear(const std::string& from, const std::string& scope, const std::string& w, const std::string& b) {
    put(scope + "_" + w, ours(from + ".weight").t());
    row(scope + "_" + b, ours(from + ".bias"));
  }
  void norm(const std::string& from, const std::string& scope) {
    const std::string suffix = pre_norm_ ? "_pre" : "";
    row(scope + "_ln_scale" + suffix, ours(from + ".gamma"));
    row(scope + "_ln_bias" + suffix, ours(from + ".beta"));
  }
  void attention(const std::string& from, const std::string& norm_from, const std::string& scope) {
    for (const char* p : {"q", "k", "v"}) linear(from + ".w_" + p, scope, std::string("W") + p, std::string("b") + p);
    linear(from + ".w_concat", scope, "Wo", "bo");
    norm(norm_from, scope + "_Wo");
  }
  void ffn(const std::string& from, const std::string& norm_from, const std::string& scope) {
    linear(from + ".linear1", scope, "W1", "b1");
    linear(from + ".linear2", scope, "W2", "b2");
    norm(norm_from, scope + "_ffn");
  }

  std::map<std::string, torch::Tensor> arrays;

 private:
  const storage::StateDict& ours_;
  bool pre_norm_;
};

void write_layers(MarianWriter& w, int64_t layers) {
  for (int64_t i = 0; i < layers; ++i) {
    const std::string e = "encoder.layers." + std::to_string(i) + ".", d = "decoder.layers." + std::to_string(i) + ".";
    const std::string l = "_l" + std::to_string(i + 1);
    w.attention(e + "attention", e + "norm1", "encoder" + l + "_self");
    w.ffn(e + "ffn", e + "norm2", "encoder" + l + "_ffn");
    w.attention(d + "self_attention", d + "norm1", "decoder" + l + "_self");
    w.attention(d + "enc_dec_attention", d + "norm2", "decoder" + l + "_context");
    w.ffn(d + "ffn", d + "norm3", "decoder" + l + "_ffn");
  }
}

// Marian's activation name of ours.
std::string marian_activation(const std::string& ours) { return ours == "gelu_sigmoid" ? "gelu" : ours; }

// special:model.yml: the options Marian (and CTranslate2's converter) read.
std::string options_yaml(const ModelConfig& m, bool trained_positions) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "transformer";
  y << YAML::Key << "dim-emb" << YAML::Value << m.d_model;
  y << YAML::Key << "dim-vocabs" << YAML::Value << YAML::Flow << std::vector<int64_t>{m.enc_voc_size, m.dec_voc_size};
  y << YAML::Key << "enc-depth" << YAML::Value << m.n_layers;
  y << YAML::Key << "dec-depth" << YAML::Value << m.n_layers;
  y << YAML::Key << "transformer-heads" << YAML::Value << m.n_head;
  y << YAML::Key << "transformer-dim-ffn" << YAML::Value << m.ffn_hidden;
  y << YAML::Key << "transformer-ffn-depth" << YAML::Value << 2;
  y << YAML::Key << "transformer-ffn-activation" << YAML::Value << marian_activation(m.activation);
  y << YAML::Key << "transformer-preprocess" << YAML::Value << (m.pre_norm ? "n" : "");
  y << YAML::Key << "transformer-postprocess" << YAML::Value << (m.pre_norm ? "da" : "dan");
  y << YAML::Key << "transformer-postprocess-top" << YAML::Value << (m.pre_norm ? "n" : "");
  y << YAML::Key << "transformer-postprocess-emb" << YAML::Value << "d";
  y << YAML::Key << "transformer-decoder-autoreg" << YAML::Value << "self-attention";
  y << YAML::Key << "transformer-no-projection" << YAML::Value << false;
  y << YAML::Key << "transformer-guided-alignment-layer" << YAML::Value << "last";
  y << YAML::Key << "transformer-train-position-embeddings" << YAML::Value << trained_positions;
  y << YAML::Key << "tied-embeddings" << YAML::Value << false;
  y << YAML::Key << "tied-embeddings-all" << YAML::Value << false;
  y << YAML::Key << "tied-embeddings-src" << YAML::Value << false;
  y << YAML::Key << "right-left" << YAML::Value << false;
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

std::string vocabulary_yaml(const vocab::Vocab& v) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  for (int32_t id = 0; id < v.size(); ++id) y << YAML::Key << v.id_to_piece(id) << YAML::Value << id;
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

std::string decoder_yaml(const std::string& src_vocab, const std::string& tgt_vocab,
                         const std::optional<storage::DecodingChoice>& decoding) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "relative-paths" << YAML::Value << true;
  y << YAML::Key << "models" << YAML::Value << std::vector<std::string>{"model.npz"};
  y << YAML::Key << "vocabs" << YAML::Value << std::vector<std::string>{src_vocab, tgt_vocab};
  y << YAML::Key << "beam-size" << YAML::Value << (decoding ? decoding->beam : 4);
  // Marian divides by length^normalize: our penalty where it has that form, else OPUS-MT's 1.
  const bool power = decoding && decoding->length_penalty_form == "power";
  y << YAML::Key << "normalize" << YAML::Value << (power ? decoding->length_penalty : 1.0);
  y << YAML::Key << "word-penalty" << YAML::Value << 0;
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

// model.npz: every weight, positions as Marian's sinusoids or a trained table.
std::string model_npz(model::TransformerImpl& model) {
  const ModelConfig& m = model.config();
  const auto ours = storage::state_dict_of(model);
  MarianWriter w(ours, m.pre_norm);
  w.put("encoder_Wemb", w.ours("encoder.emb.tok_emb.weight"));
  w.put("decoder_Wemb", w.ours("decoder.emb.tok_emb.weight"));
  w.put("decoder_ff_logit_out_W", w.ours("decoder.linear.weight").t());
  w.row("decoder_ff_logit_out_b", w.ours("decoder.linear.bias"));
  const auto table = model.decoder->emb->pos_emb->table().detach().to(torch::kCPU, torch::kFloat);
  const bool sinusoids = table.size(1) % 2 == 0 &&
                         torch::allclose(table, marian_sinusoids(table.size(0), table.size(1)), 0, 1e-6) &&
                         torch::equal(table, model.encoder->emb->pos_emb->table().detach().to(torch::kCPU, torch::kFloat));
  if (!sinusoids) w.put("Wpos", table);
  if (m.pre_norm) {
    w.row("encoder_top_ln_scale", w.ours("encoder.norm.gamma"));
    w.row("encoder_top_ln_bias", w.ours("encoder.norm.beta"));
    w.row("decoder_top_ln_scale", w.ours("decoder.norm.gamma"));
    w.row("decoder_top_ln_bias", w.ours("decoder.norm.beta"));
  }
  write_layers(w, m.n_layers);
  const std::string options = options_yaml(m, !sinusoids);
  auto text = torch::zeros({static_cast<int64_t>(options.size()) + 1}, torch::kChar);  // with a final NUL
  std::memcpy(text.data_ptr(), options.data(), options.size());
  w.arrays["special:model.yml"] = text;
  return npz_bytes(w.arrays);
}

void write_marian_folder(const storage::LoadedModel& loaded, const fs::path& dir) {
  model::Transformer model = loaded.model;
  write_file_atomically((dir / "model.npz").string(), model_npz(*model));
  const auto& v = loaded.vocabs;
  const bool shared = v.src == v.tgt;
  const std::string src = shared ? "vocab.yml" : "vocab.src.yml", tgt = shared ? "vocab.yml" : "vocab.trg.yml";
  write_file_atomically((dir / src).string(), vocabulary_yaml(*v.src));
  if (!shared) write_file_atomically((dir / tgt).string(), vocabulary_yaml(*v.tgt));
  write_file_atomically((dir / "decoder.yml").string(), decoder_yaml(src, tgt, loaded.decoding));
  const std::string src_pieces = v.src->segmenter_path(), tgt_pieces = v.tgt->segmenter_path();
  if (!src_pieces.empty() && !tgt_pieces.empty()) {
    fs::copy_file(src_pieces, dir / "source.spm");
    fs::copy_file(tgt_pieces, dir / "target.spm");
  }
}

}  // namespace

void export_marian(const storage::LoadedModel& loaded, const std::string& out_dir) {
  const std::string lacks = what_marian_lacks(loaded.config.model);
  if (!lacks.empty()) {
    throw UsageError("--export marian: this model uses " + lacks +
                     ", which Marian cannot compute; models read from Marian (and fine-tuned from them) export, "
                     "and --export ct2 takes any model.");
  }
  std::error_code ec;
  if (fs::exists(out_dir, ec)) throw UsageError("--out " + out_dir + " exists; name a new directory to export to.");
  write_directory_atomically(out_dir, "the Marian model",
                             [&](const fs::path& dir) { write_marian_folder(loaded, dir); });
}

}  // namespace nmt::interop
