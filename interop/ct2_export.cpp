#include "interop/ct2_export.h"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "interop/ct2_transformer.h"
#include "util/atomic_directory.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::interop {
namespace fs = std::filesystem;
namespace {

constexpr uint32_t kTransformerSpecRevision = 7;  // CTranslate2 4.x's

class SpecWriter {
 public:
  SpecWriter(const storage::StateDict& ours, Ct2ModelFile& out) : ours_(ours), out_(out) {}

  const torch::Tensor& ours(const std::string& name) const {
    const auto it = ours_.find(name);
    if (it == ours_.end()) throw DataError("The model has no weight " + name + " to export.");
    return it->second;
  }
  void put(const std::string& name, const torch::Tensor& t) {
    out_.variables[name] = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
  }
  void scalar(const std::string& name, int64_t v, torch::ScalarType type) {
    out_.variables[name] = torch::tensor(v, torch::TensorOptions().dtype(torch::kLong)).to(type);
  }
  void norm(const std::string& from, const std::string& to) {
    put(to + "/gamma", ours(from + ".gamma"));
    put(to + "/beta", ours(from + ".beta"));
  }
  // Several of our linears fused row-wise into one of CTranslate2's.
  void linear(const std::vector<std::string>& from, const std::string& to) {
    std::vector<torch::Tensor> weights, biases;
    for (const auto& f : from) {
      weights.push_back(ours(f + ".weight"));
      biases.push_back(ours(f + ".bias"));
    }
    put(to + "/weight", torch::cat(weights, 0));
    put(to + "/bias", torch::cat(biases, 0));
  }

 private:
  const storage::StateDict& ours_;
  Ct2ModelFile& out_;
};

void write_layers(SpecWriter& w, int64_t n_layers) {
  for (int64_t i = 0; i < n_layers; ++i) {
    const std::string E = "encoder.layers." + std::to_string(i) + ".", e = "encoder/layer_" + std::to_string(i) + "/";
    w.linear({E + "attention.w_q", E + "attention.w_k", E + "attention.w_v"}, e + "self_attention/linear_0");
    w.linear({E + "attention.w_concat"}, e + "self_attention/linear_1");
    w.norm(E + "norm1", e + "self_attention/layer_norm");
    w.linear({E + "ffn.linear1"}, e + "ffn/linear_0");
    w.linear({E + "ffn.linear2"}, e + "ffn/linear_1");
    w.norm(E + "norm2", e + "ffn/layer_norm");
    const std::string D = "decoder.layers." + std::to_string(i) + ".", d = "decoder/layer_" + std::to_string(i) + "/";
    const std::string s = D + "self_attention.", x = D + "enc_dec_attention.";
    w.linear({s + "w_q", s + "w_k", s + "w_v"}, d + "self_attention/linear_0");
    w.linear({s + "w_concat"}, d + "self_attention/linear_1");
    w.norm(D + "norm1", d + "self_attention/layer_norm");
    w.linear({x + "w_q"}, d + "attention/linear_0");
    w.linear({x + "w_k", x + "w_v"}, d + "attention/linear_1");
    w.linear({x + "w_concat"}, d + "attention/linear_2");
    w.norm(D + "norm2", d + "attention/layer_norm");
    w.linear({D + "ffn.linear1"}, d + "ffn/linear_0");
    w.linear({D + "ffn.linear2"}, d + "ffn/linear_1");
    w.norm(D + "norm3", d + "ffn/layer_norm");
  }
}

std::vector<std::string> tokens_of(const vocab::Vocab& v) {
  std::vector<std::string> tokens;
  tokens.reserve(static_cast<size_t>(v.size()));
  for (int32_t id = 0; id < v.size(); ++id) tokens.push_back(v.id_to_piece(id));
  return tokens;
}

nlohmann::json config_of(const storage::LoadedModel& loaded) {
  const ModelConfig& m = loaded.config.model;
  const auto& tgt = *loaded.vocabs.tgt;
  return {{"unk_token", tgt.id_to_piece(tgt.unk_id())},
          {"bos_token", tgt.id_to_piece(tgt.bos_id())},
          {"eos_token", tgt.id_to_piece(tgt.eos_id())},
          {"decoder_start_token", tgt.id_to_piece(tgt.bos_id())},
          {"add_source_bos", m.source_bos},
          {"add_source_eos", m.source_eos},
          {"layer_norm_epsilon", m.norm_eps},
          {"multi_query_attention", false}};
}

// The directory's files, into dir.
void write_ct2_folder(const storage::LoadedModel& loaded, const fs::path& dir) {
  model::Transformer model = loaded.model;
  // The alignment the model came with, else the one this program aligns a
  // model of its own by: the second-to-last layer, all heads.
  Ct2Alignment alignment{model->config().n_layers >= 2 ? -2 : -1, 0};
  if (loaded.decoding && loaded.decoding->alignment_layer) {
    alignment = {*loaded.decoding->alignment_layer, loaded.decoding->alignment_heads};
  }
  write_file_atomically((dir / "model.bin").string(), ct2_model_file_bytes(ct2_transformer_file(*model, alignment)));
  write_file_atomically((dir / "config.json").string(), config_of(loaded).dump(2) + "\n");
  const auto& v = loaded.vocabs;
  const bool shared = v.src == v.tgt;
  const nlohmann::json src = tokens_of(*v.src), tgt = tokens_of(*v.tgt);
  write_file_atomically((dir / (shared ? "shared_vocabulary.json" : "source_vocabulary.json")).string(), src.dump());
  if (!shared) write_file_atomically((dir / "target_vocabulary.json").string(), tgt.dump());
  const std::string src_pieces = v.src->segmenter_path(), tgt_pieces = v.tgt->segmenter_path();
  if (!src_pieces.empty() && !tgt_pieces.empty()) {
    fs::copy_file(src_pieces, dir / "source.spm");
    fs::copy_file(tgt_pieces, dir / "target.spm");
  }
}

}  // namespace

Ct2ModelFile ct2_transformer_file(model::TransformerImpl& model, Ct2Alignment alignment) {
  const ModelConfig& m = model.config();
  Ct2ModelFile out;
  out.version = 6;
  out.spec = "TransformerSpec";
  out.revision = kTransformerSpecRevision;
  const auto ours = storage::state_dict_of(model);
  SpecWriter w(ours, out);
  w.put("encoder/embeddings_0/weight", w.ours("encoder.emb.tok_emb.weight"));
  w.put("decoder/embeddings/weight", w.ours("decoder.emb.tok_emb.weight"));
  // Stored, since ours interleave sin and cos where CTranslate2's generated ones do not.
  w.put("encoder/position_encodings/encodings", model.encoder->emb->pos_emb->table());
  w.put("decoder/position_encodings/encodings", model.decoder->emb->pos_emb->table());
  for (const char* side : {"encoder", "decoder"}) {
    const std::string s = side;
    w.scalar(s + "/num_heads", m.n_head, torch::kShort);
    w.scalar(s + "/pre_norm", m.pre_norm ? 1 : 0, torch::kChar);
    w.scalar(s + "/activation", ct2_activation_id(m.activation), torch::kChar);
    w.scalar(s + "/scale_embeddings", m.scale_embedding ? 1 : 0, torch::kChar);
  }
  w.scalar("encoder/embeddings_merge", 0, torch::kChar);
  w.scalar("decoder/alignment_layer", alignment.layer, torch::kShort);
  w.scalar("decoder/alignment_heads", alignment.heads, torch::kShort);
  w.scalar("decoder/start_from_zero_embedding", m.start_from_zero_embedding ? 1 : 0, torch::kChar);
  if (m.pre_norm) {
    w.norm("encoder.norm", "encoder/layer_norm");
    w.norm("decoder.norm", "decoder/layer_norm");
  }
  write_layers(w, m.n_layers);
  w.put("decoder/projection/weight", w.ours("decoder.linear.weight"));
  w.put("decoder/projection/bias", w.ours("decoder.linear.bias"));
  return out;
}

void export_ct2(const storage::LoadedModel& loaded, const std::string& out_dir) {
  std::error_code ec;
  if (fs::exists(out_dir, ec)) throw UsageError("--out " + out_dir + " exists; name a new directory to export to.");
  try {
    write_directory_atomically(out_dir, "the CTranslate2 model",
                               [&](const fs::path& dir) { write_ct2_folder(loaded, dir); });
  } catch (const nlohmann::json::exception& e) {
    throw DataError("The vocabulary of the model cannot be written as JSON (a token that is not UTF-8?): " +
                    std::string(e.what()));
  }
}

}  // namespace nmt::interop
