// CTranslate2 model directories: CTranslate2's own test models (binary
// versions 1 and 2, float32, int16 and int8 weights; tests/fixtures/ctranslate2)
// read, translated and scored as CTranslate2's own tests assert, imported into
// a directory of ours, and bad files refused with a message naming them.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data_test_util.h"
#include "decode/translation.h"
#include "interop/ct2_export.h"
#include "interop/ct2_model_file.h"
#include "interop/ct2_transformer.h"
#include "interop/model_loader.h"
#include "tests/test_support.h"
#include "util/error.h"
#include "vocab/token_list_vocab.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;

std::string ct2_fixture(const std::string& name) { return test::fixtures_dir() + "/ctranslate2/" + name; }

const std::vector<std::string> kAllModels = {"v1/aren-transliteration", "v1/aren-transliteration-i16",
                                             "v2/aren-transliteration", "v2/aren-transliteration-i16",
                                             "v2/aren-transliteration-i8"};

// The search CTranslate2 runs by default, as the imported model declares it.
decode::SearchOptions engine_search(const storage::DecodingChoice& d) {
  decode::SearchOptions s;
  s.beam = d.beam;
  s.length_penalty = d.length_penalty;
  s.length_penalty_form = decode::length_penalty_form(d.length_penalty_form, "decoding");
  s.min_length = d.min_length.value_or(0);
  s.max_len_a = d.max_len_a.value_or(s.max_len_a);
  s.max_len_b = d.max_len_b.value_or(s.max_len_b);
  s.ctranslate2_prefix = d.ctranslate2_prefix;
  return s;
}

decode::Translator translator_of(const storage::LoadedModel& loaded, decode::SearchOptions search) {
  decode::TranslatorOptions options;
  options.search = search;
  return decode::Translator(loaded.model, loaded.vocabs, options);
}

std::string best_text(decode::Translator& t, const std::string& line) {
  const auto out = t.translate({line});
  return out.at(0).texts.empty() ? "<none>" : out.at(0).texts.at(0);
}

// Per-token log-probabilities of `target` (ids without bos, eos appended) for
// `source`, from one teacher-forced pass: what CTranslate2's score_batch returns.
std::vector<double> token_log_probs(const storage::LoadedModel& loaded, const std::string& source,
                                    const std::string& target) {
  torch::NoGradGuard no_grad;
  auto src_ids = loaded.vocabs.src->encode(source);
  auto tgt_ids = loaded.vocabs.tgt->encode(target);
  std::vector<int64_t> src(src_ids.begin(), src_ids.end()), in{loaded.vocabs.tgt->bos_id()}, gold;
  for (int32_t id : tgt_ids) {
    in.push_back(id);
    gold.push_back(id);
  }
  gold.push_back(loaded.vocabs.tgt->eos_id());
  model::Transformer transformer = loaded.model;  // a handle: forward() is not const
  const auto logits = transformer->forward(torch::tensor(src).unsqueeze(0), torch::tensor(in).unsqueeze(0));
  const auto lp = logits.log_softmax(-1)[0].to(torch::kDouble);
  std::vector<double> out;
  for (size_t t = 0; t < gold.size(); ++t) out.push_back(lp[static_cast<int64_t>(t)][gold[t]].item<double>());
  return out;
}

const char* kAtzmon = "آ ت ز م و ن";
const char* kAchison = "آ ت ش ي س و ن";

TEST(Ct2ModelFile, ReadsEveryVersionAndWeightType) {
  const auto v1 = interop::read_ct2_model_file(ct2_fixture("v1/aren-transliteration/model.bin"));
  EXPECT_EQ(v1.version, 1u);
  EXPECT_EQ(v1.spec, "");
  // OpenNMT-tf's names of version 1, renamed as CTranslate2 renames them.
  EXPECT_TRUE(v1.has("decoder/layer_0/attention/linear_2/weight"));
  EXPECT_TRUE(v1.has("encoder/layer_5/self_attention/linear_0/weight"));
  EXPECT_EQ(v1.raw("decoder/projection/weight").sizes(), (std::vector<int64_t>{43, 32}));
  const auto v2 = interop::read_ct2_model_file(ct2_fixture("v2/aren-transliteration/model.bin"));
  EXPECT_EQ(v2.spec, "TransformerBase");
  EXPECT_EQ(v2.revision, 2u);
  // The same float32 weights in both versions.
  EXPECT_TRUE(torch::equal(v1.raw("decoder/layer_3/ffn/linear_1/weight"), v2.raw("decoder/layer_3/ffn/linear_1/weight")));

  const auto i8 = interop::read_ct2_model_file(ct2_fixture("v2/aren-transliteration-i8/model.bin"));
  const auto& q = i8.raw("encoder/embeddings/weight");
  EXPECT_EQ(q.scalar_type(), torch::kChar);
  // int8 times the reciprocal of its row's scale, as CTranslate2 dequantizes.
  const auto scale = i8.raw("encoder/embeddings/weight_scale");
  ASSERT_EQ(scale.sizes(), (std::vector<int64_t>{51}));
  const auto row = q[7].to(torch::kFloat) * (1.0f / scale[7].item<float>());
  EXPECT_TRUE(torch::equal(i8.float32("encoder/embeddings/weight")[7], row));
  // Within a quantization step (1/scale) of the float32 model's weights.
  const auto f32 = v2.raw("encoder/embeddings/weight");
  const auto step = (1.0 / scale).unsqueeze(1);
  EXPECT_TRUE(((i8.float32("encoder/embeddings/weight") - f32).abs() <= step + 1e-7).all().item<bool>());

  // int16 of version 1 stores no scale: CTranslate2's 1000.
  const auto i16 = interop::read_ct2_model_file(ct2_fixture("v1/aren-transliteration-i16/model.bin"));
  EXPECT_EQ(i16.raw("decoder/embeddings/weight").scalar_type(), torch::kShort);
  EXPECT_FALSE(i16.has("decoder/embeddings/weight_scale"));
  EXPECT_TRUE(test::tensors_close(i16.float32("decoder/embeddings/weight"), v1.raw("decoder/embeddings/weight"), 0,
                                  1.0 / 1000 + 1e-7));
}

TEST(Ct2Model, EveryTestModelTransliteratesAsCTranslate2Asserts) {
  for (const auto& name : kAllModels) {
    SCOPED_TRACE(name);
    const auto loaded = interop::load_model(ct2_fixture(name), "", torch::kCPU);
    ASSERT_TRUE(loaded.decoding.has_value());
    EXPECT_EQ(loaded.decoding->engine, "CTranslate2");
    EXPECT_EQ(loaded.decoding->beam, 2);
    auto t = translator_of(loaded, engine_search(*loaded.decoding));
    EXPECT_EQ(best_text(t, kAtzmon), "a t z m o n");
    EXPECT_EQ(best_text(t, kAchison), "a c h i s o n");
    // Greedy too (CTranslate2's SearchVariantTest runs beam 1 and 4).
    auto search = engine_search(*loaded.decoding);
    search.beam = 1;
    auto greedy = translator_of(loaded, search);
    EXPECT_EQ(best_text(greedy, kAtzmon), "a t z m o n");
    search.beam = 4;
    auto beam4 = translator_of(loaded, search);
    EXPECT_EQ(best_text(beam4, kAtzmon), "a t z m o n");
  }
}

TEST(Ct2Model, TokenLogProbabilitiesMatchCTranslate2sScoreBatch) {
  // python/tests/test_translator.py test_score_api (rtol 1e-4) and
  // tests/translator_test.cc Scoring (1e-5), float32 model.
  const auto loaded = interop::load_model(ct2_fixture("v2/aren-transliteration"), "", torch::kCPU);
  const std::vector<std::tuple<std::string, std::string, std::vector<double>>> cases = {
      {kAtzmon, "a t z m o n", {-0.106023, -0.065410, -0.056002, -0.447953, -0.230714, -0.092184, -0.063463}},
      {kAchison,
       "a c h i s o n",
       {-0.072660, -0.300309, -0.181187, -0.395671, -0.025631, -0.123466, -0.002034, -0.012639}},
      {"آ ر ب ا ك ه", "a r b a k e", {-0.103136, -0.089504, -0.063889, -0.007327, -0.452072, -0.060154, -0.016636}},
      {"آ ر ث ر", "a r t h e r", {-0.076704, -0.036037, -0.029253, -0.030273, -0.149276, -0.002440, -0.003742}}};
  for (const auto& [source, target, expected] : cases) {
    SCOPED_TRACE(target);
    const auto got = token_log_probs(loaded, source, target);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5 + 1e-4 * std::abs(expected[i]));
  }
}

TEST(Ct2Model, ScoreTargetsGivesCTranslate2sScoreBatchInABatch) {
  const auto loaded = interop::load_model(ct2_fixture("v2/aren-transliteration"), "", torch::kCPU);
  decode::TranslatorOptions options;
  options.batch_size = 3;  // one batch of three, padded, then one alone
  decode::Translator t(loaded.model, loaded.vocabs, options);
  auto ids = [](const vocab::Vocab& v, const std::string& text) {
    const auto i = v.encode(text);
    return std::vector<int64_t>(i.begin(), i.end());
  };
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {kAtzmon, "a t z m o n"}, {kAchison, "a c h i s o n"}, {"آ ر ث ر", "a r t h e r"}, {kAtzmon, "a t z m o n"}};
  std::vector<std::vector<int64_t>> src, tgt;
  for (const auto& [s, t_] : pairs) {
    src.push_back(ids(*loaded.vocabs.src, s));
    tgt.push_back(ids(*loaded.vocabs.tgt, t_));
  }
  const auto scores = t.score_targets(src, tgt);
  const std::vector<std::vector<double>> expected = {
      {-0.106023, -0.065410, -0.056002, -0.447953, -0.230714, -0.092184, -0.063463},
      {-0.072660, -0.300309, -0.181187, -0.395671, -0.025631, -0.123466, -0.002034, -0.012639},
      {-0.076704, -0.036037, -0.029253, -0.030273, -0.149276, -0.002440, -0.003742}};
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(scores[i].size(), expected[i].size()) << i;
    for (size_t j = 0; j < expected[i].size(); ++j) EXPECT_NEAR(scores[i][j], expected[i][j], 1e-5) << i << ", " << j;
  }
  // Alone and padded in a batch: the teacher-forced pass takes ATen's
  // batched products, not decoding's batch-invariant kernels, so within a
  // float32 rounding or two rather than bit for bit.
  for (size_t j = 0; j < scores[0].size(); ++j) EXPECT_NEAR(scores[3][j], scores[0][j], 1e-6) << j;
}

TEST(Ct2Model, ScoresAreCTranslate2sNormalizedScores) {
  // CTranslate2 divides the summed log-probability, the end token's included,
  // by the length with the end token (length penalty 1); greedy and beam 2
  // agree within 1e-5 (SameBeamAndGreedyScore). Its score of "a t z m o n" is
  // the score_batch sum / 7 but for step 0, where the end token is forbidden
  // (min_decoding_length 1) and the rest renormalized: a shift far below 1e-4.
  const auto loaded = interop::load_model(ct2_fixture("v2/aren-transliteration"), "", torch::kCPU);
  const double expected = (-0.106023 - 0.065410 - 0.056002 - 0.447953 - 0.230714 - 0.092184 - 0.063463) / 7;
  for (int64_t beam : {1, 2}) {
    auto search = engine_search(*loaded.decoding);
    search.beam = beam;
    auto t = translator_of(loaded, search);
    const auto out = t.translate({kAtzmon});
    ASSERT_FALSE(out.at(0).scores.empty());
    EXPECT_NEAR(out.at(0).scores.at(0), expected, 1e-4) << "beam " << beam;
  }
}

TEST(Ct2Model, TargetPrefixAndLengthOptionsAsInCTranslate2sTests) {
  const auto loaded = interop::load_model(ct2_fixture("v2/aren-transliteration"), "", torch::kCPU);
  auto search = engine_search(*loaded.decoding);
  decode::TranslatorOptions options;
  options.search = search;
  options.target_prefix = true;
  decode::Translator t(loaded.model, loaded.vocabs, options);
  const auto out = t.translate({std::string(kAtzmon) + "\ta t s", std::string(kAchison) + "\t"});
  EXPECT_EQ(out.at(0).texts.at(0), "a t s u m o n");
  EXPECT_EQ(out.at(1).texts.at(0), "a c h i s o n");
  // min_decoding_length 7 (with the end token): more than 6 tokens.
  search.min_length = 7;
  auto longer = translator_of(loaded, search);
  EXPECT_GT(longer.translate({kAtzmon}).at(0).hypotheses.at(0).at(0).tokens.size(), 6u);
}

TEST(Ct2Model, ImportWritesADirectoryThatTranslatesTheSame) {
  test::TempDir dir;
  const std::string out = dir.path("imported");
  for (const std::string name : {"v2/aren-transliteration", "v2/aren-transliteration-i8"}) {
    SCOPED_TRACE(name);
    fs::remove_all(out);
    interop::write_native_model_dir(interop::import_model(ct2_fixture(name)), out);
    EXPECT_EQ(interop::model_format(out), "native");
    const auto direct = interop::load_model(ct2_fixture(name), "", torch::kCPU);
    const auto native = interop::load_model(out, "", torch::kCPU);
    ASSERT_TRUE(native.decoding.has_value());
    EXPECT_EQ(native.decoding->engine, "CTranslate2");
    EXPECT_EQ(native.decoding->length_penalty_form, "power");
    auto a = translator_of(direct, engine_search(*direct.decoding));
    auto b = translator_of(native, engine_search(*native.decoding));
    const auto ra = a.translate({kAtzmon, kAchison}), rb = b.translate({kAtzmon, kAchison});
    for (size_t i = 0; i < ra.size(); ++i) {
      EXPECT_EQ(ra[i].texts, rb[i].texts);
      EXPECT_EQ(ra[i].scores, rb[i].scores) << "the same weights, the same bits";
    }
  }
  EXPECT_TRUE(test::throws_with<UsageError>(
      [&] { interop::write_native_model_dir(interop::import_model(ct2_fixture(kAllModels[0])), out); }, {out, "exists"}));
}

// A model.bin of binary version 4+ from variables: the layout CTranslate2's
// own writer produces (model_spec.py), written here independently.
std::string ct2_bytes(uint32_t version, const std::vector<std::pair<std::string, torch::Tensor>>& vars) {
  std::string out;
  auto put = [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  auto u32 = [&](uint32_t v) { put(&v, 4); };
  auto str = [&](const std::string& s) {
    const uint16_t n = static_cast<uint16_t>(s.size() + 1);
    put(&n, 2);
    out += s;
    out += '\0';
  };
  u32(version);
  str("TransformerSpec");
  u32(7);
  u32(static_cast<uint32_t>(vars.size()));
  for (const auto& [name, t] : vars) {
    str(name);
    const uint8_t rank = static_cast<uint8_t>(t.dim());
    put(&rank, 1);
    for (int64_t d : t.sizes()) u32(static_cast<uint32_t>(d));
    const uint8_t type = t.scalar_type() == torch::kFloat ? 0 : t.scalar_type() == torch::kChar ? 1 : 2;
    put(&type, 1);
    const auto c = t.contiguous();
    u32(static_cast<uint32_t>(c.nbytes()));
    put(c.data_ptr(), c.nbytes());
  }
  u32(0);  // no aliases
  return out;
}

// The float32 test model's variables, for files made from it.
std::vector<std::pair<std::string, torch::Tensor>> test_model_variables() {
  const auto f = interop::read_ct2_model_file(ct2_fixture("v2/aren-transliteration/model.bin"));
  return {f.variables.begin(), f.variables.end()};
}

// A copy of the float32 test model at dir with model.bin replaced by `bytes`.
void write_model_dir(const std::string& dir, const std::string& bytes) {
  fs::create_directories(dir);
  for (const char* f : {"source_vocabulary.txt", "target_vocabulary.txt"}) {
    fs::copy_file(ct2_fixture("v2/aren-transliteration/") + f, dir + "/" + f, fs::copy_options::overwrite_existing);
  }
  test::write_file(dir + "/model.bin", bytes);
}

TEST(Ct2Model, AFileWrittenInVersion6TranslatesAsTheOriginal) {
  test::TempDir dir;
  write_model_dir(dir.path("m"), ct2_bytes(6, test_model_variables()));
  test::write_file(dir.path("m/config.json"),
                   R"({"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>", "decoder_start_token": "<s>",
                       "add_source_bos": false, "add_source_eos": false, "layer_norm_epsilon": null})");
  const auto loaded = interop::load_model(dir.path("m"), "", torch::kCPU);
  auto t = translator_of(loaded, engine_search(*loaded.decoding));
  EXPECT_EQ(best_text(t, kAchison), "a c h i s o n");
}

TEST(Ct2Model, BadFilesAreRefusedNamingTheFileAndTheFault) {
  test::TempDir dir;
  const std::string good = ct2_bytes(6, test_model_variables());
  const std::string m = dir.path("m"), bin = m + "/model.bin";
  // Truncated anywhere: header, a name, a shape, the data, the aliases.
  for (size_t cut : {size_t{2}, size_t{9}, size_t{40}, good.size() / 2, good.size() - 2}) {
    write_model_dir(m, good.substr(0, cut));
    EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(m, "", torch::kCPU); },
                                             {bin, "truncated or corrupt"}))
        << "cut at " << cut;
  }
  write_model_dir(m, good + "xx");
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(m, "", torch::kCPU); }, {bin, "follow"}));
  write_model_dir(m, ct2_bytes(7, test_model_variables()));
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(m, "", torch::kCPU); }, {bin, "binary version 7"}));
  // A type id CTranslate2 does not have.
  std::string bad_type = good;
  const size_t first_type = 4 + 2 + 16 + 4 + 4 + 2 + std::string("decoder/embeddings/weight").size() + 1 + 1 + 8;
  bad_type[first_type] = 9;
  write_model_dir(m, bad_type);
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(m, "", torch::kCPU); }, {bin, "unknown type 9"}));

  // An option this program does not compute, named.
  auto vars = test_model_variables();
  vars.push_back({"encoder/activation", torch::tensor(5, torch::kChar)});  // Tanh
  vars.push_back({"decoder/activation", torch::tensor(5, torch::kChar)});
  write_model_dir(m, ct2_bytes(5, vars));
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(m, "", torch::kCPU); }, {bin, "activation 5"}));

  // A vocabulary that does not fit the weights.
  write_model_dir(m, good);
  test::write_file(m + "/target_vocabulary.txt", "<blank>\n<s>\n</s>\na\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(m, "", torch::kCPU); }, {m, "43", "vocabularies"}));
  fs::remove(m + "/target_vocabulary.txt");
  fs::remove(m + "/source_vocabulary.txt");
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(m, "", torch::kCPU); }, {m, "no vocabulary"}));
}

// A tiny model of ours with a token-list vocabulary of its 40 ids (unk 0,
// pad 1, bos 2, eos 3 as the tiny model expects).
storage::LoadedModel tiny_loaded(uint64_t seed, bool pre_norm) {
  storage::LoadedModel loaded;
  loaded.config.model = test::tiny_model_config();
  loaded.config.model.pre_norm = pre_norm;
  loaded.config.model.scale_embedding = pre_norm;
  torch::manual_seed(seed);
  loaded.model = model::Transformer(loaded.config.model);
  model::init_weights_like_reference(*loaded.model);
  loaded.model->eval();
  std::vector<std::string> tokens = {"<unk>", "<pad>", "<s>", "</s>"};
  for (int i = 4; i < 40; ++i) tokens.push_back("t" + std::to_string(i));
  loaded.vocabs.src = loaded.vocabs.tgt = std::make_shared<const vocab::TokenListVocab>(tokens, "tiny");
  return loaded;
}

std::vector<std::vector<decode::Hypothesis>> translate_tiny(const storage::LoadedModel& loaded, int64_t beam) {
  decode::TranslatorOptions options;
  options.search.beam = beam;
  options.search.nbest = beam;
  decode::Translator t(loaded.model, loaded.vocabs, options);
  return t.translate_ids({{4, 9, 17, 5}, {30, 31, 12, 7, 7, 21, 8}, {11}});
}

TEST(Ct2Export, OurModelGoesToCTranslate2AndBackBitForBit) {
  for (bool pre_norm : {false, true}) {
    SCOPED_TRACE(pre_norm ? "pre-norm, scaled embeddings" : "the reference's post-norm");
    test::TempDir dir;
    const auto ours = tiny_loaded(11, pre_norm);
    interop::export_ct2(ours, dir.path("ct2"));
    for (const char* f : {"model.bin", "config.json", "shared_vocabulary.json"}) {
      EXPECT_TRUE(fs::exists(dir.path("ct2/") + f)) << f;
    }
    const auto file = interop::read_ct2_model_file(dir.path("ct2/model.bin"));
    EXPECT_EQ(file.version, 6u);
    EXPECT_EQ(file.spec, "TransformerSpec");
    EXPECT_EQ(file.raw("encoder/layer_1/self_attention/linear_0/weight").sizes(), (std::vector<int64_t>{96, 32}));
    EXPECT_EQ(file.has("encoder/layer_norm/gamma"), pre_norm);
    // Unknown tokens aligned as this program aligns its own models: the second-to-last layer, all heads.
    ASSERT_GE(ours.config.model.n_layers, 2);
    EXPECT_EQ(file.scalar("decoder/alignment_layer", 9), -2);
    EXPECT_EQ(file.scalar("decoder/alignment_heads", 9), 0);
    const auto back = interop::load_model(dir.path("ct2"), "", torch::kCPU);
    EXPECT_EQ(back.config.model.norm_eps, 1e-12);
    EXPECT_TRUE(back.config.model.source_bos && back.config.model.source_eos);
    for (int64_t beam : {1, 4}) {
      const auto a = translate_tiny(ours, beam), b = translate_tiny(back, beam);
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].size(), b[i].size());
        for (size_t k = 0; k < a[i].size(); ++k) {
          EXPECT_EQ(a[i][k].tokens, b[i][k].tokens) << "beam " << beam << " sentence " << i;
          EXPECT_EQ(a[i][k].log_prob, b[i][k].log_prob) << "beam " << beam << " sentence " << i;
        }
      }
    }
    EXPECT_TRUE(test::throws_with<UsageError>([&] { interop::export_ct2(ours, dir.path("ct2")); }, {"exists"}));
  }
}

}  // namespace
}  // namespace nmt
