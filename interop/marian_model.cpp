#include "interop/marian_model.h"

#include <cmath>
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>
#include <torch/torch.h>
#include <yaml-cpp/yaml.h>

#include "interop/ct2_model_file.h"
#include "interop/ct2_transformer.h"
#include "interop/npz_file.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "vocab/sentencepiece_vocab.h"

namespace nmt::interop {
namespace fs = std::filesystem;
namespace {

constexpr int64_t kPositions = 2048;  // rows of the sinusoid table, as CTranslate2's conversion makes it
constexpr const char* kOptionsArray = "special:model.yml";

[[noreturn]] void unsupported(const std::string& path, const std::string& what) {
  throw DataError("The Marian model " + path + " uses " + what + ", which this program cannot run yet.");
}

YAML::Node parse_yaml(const std::string& bytes, const std::string& path) {
  try {
    return YAML::Load(bytes);
  } catch (const YAML::Exception& e) {
    throw DataError("The Marian file " + path + " is not valid YAML: " + e.what() + ".");
  }
}

// A YAML map of options (special:model.yml, decoder.yml), each read with a
// fallback for an absent key and a DataError for a value of the wrong type.
class Options {
 public:
  Options(YAML::Node node, std::string path) : node_(std::move(node)), path_(std::move(path)) {
    if (!node_.IsMap()) throw DataError("The Marian file " + path_ + " is not a map of options.");
  }
  template <typename T>
  T get(const std::string& key, T fallback) const {
    const YAML::Node v = node_[key];
    if (!v || v.IsNull()) return fallback;
    try {
      return v.as<T>();
    } catch (const YAML::Exception&) {
      throw DataError("The Marian file " + path_ + " has a " + key + " of the wrong type.");
    }
  }
  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }

 private:
  YAML::Node node_;
  std::string path_;
};

// What decoder.yml names, with Marian's defaults for what it leaves out.
struct DecoderFile {
  fs::path model;
  std::vector<fs::path> vocabs;  // the first for the source, the last for the target
  int64_t beam = 12;
  double normalize = 0;          // scores divided by length^normalize
  double max_length_factor = 3;  // output limit: this times the source's tokens
};

DecoderFile read_decoder_file(const fs::path& dir) {
  DecoderFile d;
  const fs::path p = dir / "decoder.yml";
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    d.model = dir / "model.npz";
    d.vocabs = {dir / "vocab.yml"};
    return d;
  }
  const Options o(parse_yaml(read_file_bytes(p.string()), p.string()), p.string());
  const auto models = o.get<std::vector<std::string>>("models", {});
  const auto vocabs = o.get<std::vector<std::string>>("vocabs", {});
  if (models.empty() || vocabs.size() < 2) {
    throw DataError("The Marian file " + p.string() + " must name a model (models:) and its vocabularies (vocabs:).");
  }
  if (models.size() > 1) unsupported(p.string(), "an ensemble of " + std::to_string(models.size()) + " models");
  d.model = dir / models.front();
  for (const auto& v : vocabs) d.vocabs.push_back(dir / v);
  d.beam = o.get<int64_t>("beam-size", d.beam);
  d.normalize = o.get<double>("normalize", d.normalize);
  d.max_length_factor = o.get<double>("max-length-factor", d.max_length_factor);
  return d;
}

// A side's tokens, and the SentencePiece model that cuts its text (empty:
// spaces do).
struct SideVocabulary {
  std::vector<std::string> tokens;
  std::string pieces;
};

SideVocabulary side_vocabulary(const fs::path& file, const fs::path& dir, const char* spm_beside) {
  SideVocabulary v;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw DataError("The Marian vocabulary " + file.string() + " does not exist.");
  if (file.extension() == ".spm") {
    // Marian reads a SentencePiece model as the vocabulary itself: its pieces in its own order.
    const auto spm = vocab::SentencePieceVocab::load_segmenter(file.string());
    for (int32_t id = 0; id < spm->size(); ++id) v.tokens.push_back(spm->id_to_piece(id));
    v.pieces = file.string();
    return v;
  }
  v.tokens = read_marian_vocabulary(file.string());
  if (fs::is_regular_file(dir / spm_beside, ec)) v.pieces = (dir / spm_beside).string();
  return v;
}

// Marian's parameters under CTranslate2's names (what its converter does),
// with each shape checked where Marian's name can still be given.
class Renamer {
 public:
  Renamer(const NpzFile& npz, Ct2ModelFile& out, int64_t d) : npz_(npz), out_(out), d_(d) {}

  torch::Tensor param(const std::string& name, std::vector<int64_t> shape) const {
    auto t = npz_.at(name).to(torch::kFloat);
    if (t.dim() == 2 && t.size(0) == 1 && shape.size() == 1) t = t.squeeze(0);  // biases and norms are [1, n]
    if (t.sizes() != torch::IntArrayRef(shape)) {
      throw DataError("The Marian model " + npz_.path + " has " + name + " of shape " + shape_text(t.sizes()) + "; " +
                      shape_text(shape) + " expected.");
    }
    return t.contiguous();
  }
  void put(const std::string& name, const torch::Tensor& t) { out_.variables[name] = t; }
  void flag(const std::string& name, double v) { out_.variables[name] = torch::full({}, v, torch::kChar); }

  // Marian's W [in, out] and b [1, out] as a linear's weight [out, in] and bias.
  void linear(const std::string& weight, const std::string& bias, const std::string& to, int64_t in, int64_t out) {
    put(to + "/weight", param(weight, {in, out}).t().contiguous());
    put(to + "/bias", param(bias, {out}));
  }
  // A norm's scale and bias: SCOPE_ln_scale_pre where it exists (pre-norm), else SCOPE_ln_scale.
  void norm(const std::string& scope, const std::string& to) {
    const std::string suffix = npz_.has(scope + "_ln_scale_pre") ? "_pre" : "";
    put(to + "/gamma", param(scope + "_ln_scale" + suffix, {d_}));
    put(to + "/beta", param(scope + "_ln_bias" + suffix, {d_}));
  }
  void attention(const std::string& scope, const std::string& to, bool self) {
    std::vector<torch::Tensor> w, b;
    for (const char* part : {"q", "k", "v"}) {
      w.push_back(param(scope + "_W" + part, {d_, d_}).t());
      b.push_back(param(scope + "_b" + part, {d_}));
    }
    if (self) {
      put(to + "/linear_0/weight", torch::cat(w, 0).contiguous());
      put(to + "/linear_0/bias", torch::cat(b, 0));
    } else {
      put(to + "/linear_0/weight", w[0].contiguous());
      put(to + "/linear_0/bias", b[0]);
      put(to + "/linear_1/weight", torch::cat({w[1], w[2]}, 0).contiguous());
      put(to + "/linear_1/bias", torch::cat({b[1], b[2]}, 0));
    }
    linear(scope + "_Wo", scope + "_bo", to + (self ? "/linear_1" : "/linear_2"), d_, d_);
    norm(scope + "_Wo", to + "/layer_norm");
  }
  void ffn(const std::string& scope, const std::string& to, int64_t hidden) {
    norm(scope + "_ffn", to + "/layer_norm");
    linear(scope + "_W1", scope + "_b1", to + "/linear_0", d_, hidden);
    linear(scope + "_W2", scope + "_b2", to + "/linear_1", hidden, d_);
  }

 private:
  static std::string shape_text(torch::IntArrayRef s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
  }
  const NpzFile& npz_;
  Ct2ModelFile& out_;
  int64_t d_;
};

// The options in special:model.yml: an int8 array of YAML ending in a NUL.
Options model_options(const NpzFile& npz) {
  if (!npz.has(kOptionsArray)) {
    throw DataError("The Marian model " + npz.path + " has no " + kOptionsArray +
                    " (Marian writes its options there); it cannot be read without them.");
  }
  const auto bytes = npz.at(kOptionsArray).contiguous();
  if (bytes.element_size() != 1) throw DataError("The Marian model " + npz.path + " has a " + kOptionsArray + " that is not text.");
  std::string text(static_cast<const char*>(bytes.data_ptr()), static_cast<size_t>(bytes.numel()));
  if (!text.empty() && text.back() == '\0') text.pop_back();
  return Options(parse_yaml(text, npz.path + " (" + kOptionsArray + ")"), npz.path + " (" + kOptionsArray + ")");
}

// CTranslate2's activation id of Marian's --transformer-ffn-activation.
int activation_id(const Options& o, const std::string& path) {
  const auto name = o.get<std::string>("transformer-ffn-activation", "swish");
  if (name == "relu") return ct2_activation_id("relu");
  if (name == "swish") return ct2_activation_id("swish");
  if (name == "gelu") return ct2_activation_id("gelu_sigmoid");  // Marian's gelu: x * sigmoid(1.702 x)
  unsupported(path, "--transformer-ffn-activation " + name + " (relu, swish and gelu run here)");
}

// Marian's pre- or post-norm; any other arrangement is refused.
bool pre_norm_of(const Options& o, const std::string& path) {
  const auto pre = o.get<std::string>("transformer-preprocess", ""), post = o.get<std::string>("transformer-postprocess", "dan");
  const auto top = o.get<std::string>("transformer-postprocess-top", "");
  if (pre == "n" && post == "da" && top == "n") return true;
  if (pre.empty() && post == "dan" && top.empty()) return false;
  unsupported(path, "--transformer-preprocess '" + pre + "' --transformer-postprocess '" + post +
                        "' --transformer-postprocess-top '" + top + "' (pre-norm n/da/n or post-norm ''/dan/'' run here)");
}

void check_options(const Options& o, const std::string& path) {
  if (o.get<std::string>("type", "transformer") != "transformer") {
    unsupported(path, "--type " + o.get<std::string>("type", "") + " (transformer models run here)");
  }
  if (o.get<std::string>("transformer-decoder-autoreg", "self-attention") != "self-attention") {
    unsupported(path, "--transformer-decoder-autoreg " + o.get<std::string>("transformer-decoder-autoreg", ""));
  }
  if (o.get<bool>("transformer-no-projection", false)) unsupported(path, "--transformer-no-projection");
  if (o.get<bool>("right-left", false)) unsupported(path, "--right-left (a decoder that writes backwards)");
  const auto emb = o.get<std::string>("transformer-postprocess-emb", "d");
  if (emb != "d" && !emb.empty()) unsupported(path, "--transformer-postprocess-emb " + emb + " (a norm of the embeddings)");
  if (o.get<int64_t>("transformer-ffn-depth", 2) != 2) unsupported(path, "--transformer-ffn-depth other than 2");
  const auto dec_ffn = o.get<int64_t>("transformer-decoder-ffn-depth", 0);
  if (dec_ffn != 0 && dec_ffn != 2) unsupported(path, "--transformer-decoder-ffn-depth other than 2");
  if (o.get<int64_t>("enc-depth", 6) != o.get<int64_t>("dec-depth", 6)) unsupported(path, "stacks of different depths");
}

// Embeddings, positions and the output projection under CTranslate2's names.
void rename_embeddings(const NpzFile& npz, Renamer& r, int64_t d) {
  const std::string src = npz.has("encoder_Wemb") ? "encoder_Wemb" : "Wemb";
  const std::string tgt = npz.has("decoder_Wemb") ? "decoder_Wemb" : "Wemb";
  const auto src_table = r.param(src, {npz.at(src).size(0), d}), tgt_table = r.param(tgt, {npz.at(tgt).size(0), d});
  r.put("encoder/embeddings_0/weight", src_table);
  r.put("decoder/embeddings/weight", tgt_table);
  const int64_t vocab = tgt_table.size(0);
  const auto positions = npz.has("Wpos") ? r.param("Wpos", {npz.at("Wpos").size(0), d}) : marian_sinusoids(kPositions, d);
  r.put("encoder/position_encodings/encodings", positions);
  r.put("decoder/position_encodings/encodings", positions);
  if (npz.has("decoder_ff_logit_out_W")) {
    r.put("decoder/projection/weight", r.param("decoder_ff_logit_out_W", {d, vocab}).t().contiguous());
  } else if (npz.has("decoder_ff_logit_out_Wt")) {
    r.put("decoder/projection/weight", r.param("decoder_ff_logit_out_Wt", {vocab, d}));
  } else {
    r.put("decoder/projection/weight", tgt_table);  // tied to the decoder's embeddings
  }
  if (npz.has("decoder_ff_logit_out_b")) r.put("decoder/projection/bias", r.param("decoder_ff_logit_out_b", {vocab}));
}

Ct2ModelFile renamed(const NpzFile& npz, const Options& o, int64_t layers) {
  const std::string emb = npz.has("encoder_Wemb") ? "encoder_Wemb" : "Wemb";
  if (!npz.has(emb)) throw DataError("The Marian model " + npz.path + " has no embeddings (Wemb or encoder_Wemb).");
  if (npz.at(emb).dim() != 2) throw DataError("The Marian model " + npz.path + " has embeddings that are not a matrix.");
  const int64_t d = npz.at(emb).size(1);
  if (!npz.has("encoder_l1_ffn_W1") || npz.at("encoder_l1_ffn_W1").dim() != 2) {
    throw DataError("The Marian model " + npz.path + " has no encoder_l1_ffn_W1.");
  }
  const int64_t hidden = npz.at("encoder_l1_ffn_W1").size(1);
  Ct2ModelFile f;
  f.path = npz.path;
  f.engine = "Marian";
  f.version = 6;
  f.spec = "TransformerSpec";
  Renamer r(npz, f, d);
  const bool pre_norm = pre_norm_of(o, npz.path);
  const int act = activation_id(o, npz.path);
  for (const char* side : {"encoder", "decoder"}) {
    const std::string s = side;
    f.variables[s + "/num_heads"] = torch::full({}, o.get<int64_t>("transformer-heads", 8), torch::kShort);
    r.flag(s + "/pre_norm", pre_norm ? 1 : 0);
    r.flag(s + "/activation", act);
    r.flag(s + "/scale_embeddings", 1);
    if (pre_norm) r.norm(s + "_top", s + "/layer_norm");
  }
  r.flag("decoder/start_from_zero_embedding", 1);
  rename_embeddings(npz, r, d);
  for (int64_t i = 0; i < layers; ++i) {
    const std::string m = "_l" + std::to_string(i + 1), c = "/layer_" + std::to_string(i);
    r.attention("encoder" + m + "_self", "encoder" + c + "/self_attention", true);
    r.ffn("encoder" + m + "_ffn", "encoder" + c + "/ffn", hidden);
    r.attention("decoder" + m + "_self", "decoder" + c + "/self_attention", true);
    r.attention("decoder" + m + "_context", "decoder" + c + "/attention", false);
    r.ffn("decoder" + m + "_ffn", "decoder" + c + "/ffn", hidden);
  }
  return f;
}

// A multilingual model's target languages: its source tokens >>CODE<<
// (OPUS-MT's convention), each put before a source to ask for CODE.
std::map<std::string, std::string> target_language_tokens(const std::vector<std::string>& tokens) {
  static const std::regex kTag(R"(>>([A-Za-z0-9_-]+)<<)");
  std::map<std::string, std::string> tags;
  std::smatch m;
  for (const auto& t : tokens) {
    if (std::regex_match(t, m, kTag)) tags[m[1]] = t;
  }
  return tags;
}

// Marian's search as decoder.yml sets it: its beam, scores divided by
// length^normalize, at most max-length-factor times the source's tokens
// with its </s> (Marian's batch width).
storage::DecodingChoice marian_decoding(const DecoderFile& d) {
  storage::DecodingChoice c;
  c.engine = "Marian";
  c.beam = std::max<int64_t>(1, d.beam);
  c.length_penalty = d.normalize;
  c.length_penalty_form = "power";
  c.max_len_a = d.max_length_factor;
  c.max_len_b = static_cast<int64_t>(std::ceil(d.max_length_factor));
  c.checkpoint = "last.pt";
  return c;
}

}  // namespace

// As CTranslate2's conversion (and Hugging Face's port) makes the table, in
// double rounded to float. Marian's own table divides by 10000^(i/(d/2-1))
// instead; the conversions everyone runs use this one.
torch::Tensor marian_sinusoids(int64_t rows, int64_t d) {
  const int64_t half = d / 2;
  auto rate = torch::pow(10000.0, torch::arange(half, torch::kDouble) * (2.0 / static_cast<double>(d)));
  auto angle = torch::arange(rows, torch::kDouble).unsqueeze(1) / rate.unsqueeze(0);
  return torch::cat({torch::sin(angle), torch::cos(angle)}, 1).to(torch::kFloat).contiguous();
}

std::vector<std::string> parse_marian_vocabulary(const std::string& bytes, const std::string& path) {
  const YAML::Node node = parse_yaml(bytes, path);  // JSON is YAML too
  if (!node.IsMap() || node.size() == 0) throw DataError("The Marian vocabulary " + path + " is not a map of tokens to ids.");
  std::vector<std::string> tokens(node.size());
  std::vector<bool> seen(node.size(), false);
  for (const auto& entry : node) {
    std::string token;
    int64_t id = -1;
    try {
      token = entry.first.as<std::string>();
      id = entry.second.as<int64_t>();
    } catch (const YAML::Exception&) {
      throw DataError("The Marian vocabulary " + path + " has an entry that is not a token and its id (line " +
                      std::to_string(entry.first.Mark().line + 1) + ").");
    }
    if (id < 0 || id >= static_cast<int64_t>(tokens.size()) || seen[static_cast<size_t>(id)]) {
      throw DataError("The Marian vocabulary " + path + " gives \"" + token + "\" the id " + std::to_string(id) +
                      ", which is repeated or outside 0.." + std::to_string(tokens.size() - 1) + ".");
    }
    seen[static_cast<size_t>(id)] = true;
    tokens[static_cast<size_t>(id)] = token;
  }
  return tokens;
}

std::vector<std::string> read_marian_vocabulary(const std::string& path) {
  return parse_marian_vocabulary(read_file_bytes(path), path);
}

bool is_marian_model_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "decoder.yml", ec) || fs::is_regular_file(fs::path(dir) / "model.npz", ec);
}

ImportedModel import_marian_model(const std::string& dir_name) {
  const fs::path dir(dir_name);
  const DecoderFile decoder = read_decoder_file(dir);
  const NpzFile npz = read_npz(decoder.model.string());
  const Options options = model_options(npz);
  check_options(options, npz.path);
  ImportedModel out;
  out.origin = dir_name;
  const auto src = side_vocabulary(decoder.vocabs.front(), dir, "source.spm");
  const auto tgt = side_vocabulary(decoder.vocabs.back(), dir, "target.spm");
  out.src_tokens = src.tokens;
  out.tgt_tokens = tgt.tokens;
  out.src_pieces = src.pieces;
  out.tgt_pieces = tgt.pieces;
  out.joint = decoder.vocabs.front() == decoder.vocabs.back();
  const auto file = renamed(npz, options, options.get<int64_t>("enc-depth", 6));
  // Marian's conventions in CTranslate2's terms: sources end with </s>, the
  // decoder starts from a zero vector (the start token's row is never read).
  // The layer norms' epsilon is left to CTranslate2's default (1e-5), as its
  // conversion leaves it (Marian's own is 1e-6: docs/models_from_elsewhere.md).
  const nlohmann::json config = {{"add_source_bos", false}, {"add_source_eos", true}, {"unk_token", "<unk>"},
                                 {"bos_token", "<s>"},      {"eos_token", "</s>"},    {"decoder_start_token", "<s>"}};
  import_ct2_transformer(file, config, out);
  out.format = "Marian";
  out.target_tags = target_language_tokens(out.src_tokens);
  out.decoding = marian_decoding(decoder);
  return out;
}

}  // namespace nmt::interop
