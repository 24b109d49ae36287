// Marian model folders (tests/fixtures/marian, make_fixtures.py beside them):
// random-weight models with Marian's parameter names and options (post-norm
// Swish with every embedding tied, pre-norm ReLU with two vocabularies and an
// untied output, post-norm GELU with language tokens), YAML vocabularies with
// the keys that need quoting, and what CTranslate2 4.8.1 gives for each once
// its own Marian converter has converted it. Ours must give the same from
// the Marian folder and from the conversion (the conversion also exercises
// CTranslate2's Swish, GELU and zero-start options); bad files are refused
// naming the file and the fault.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data_test_util.h"
#include "decode/translation.h"
#include "tests/ct2_expected_util.h"
#include "document/zip_archive.h"
#include "interop/marian_export.h"
#include "interop/marian_model.h"
#include "interop/model_loader.h"
#include "interop/npz_file.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;

std::string marian_dir() { return test::fixtures_dir() + "/marian"; }
nlohmann::json expected() { return nlohmann::json::parse(test::read_text(marian_dir() + "/expected.json")); }

// Our results for the model at `path` against CTranslate2's for the variant.
void expect_ct2s_results(const std::string& path, const nlohmann::json& want, const nlohmann::json& targets,
                         size_t& compared, size_t& skipped) {
  const auto loaded = interop::load_model(path, "", torch::kCPU);
  test::expect_ct2_results(loaded, want.at("sources"), targets, want, compared, skipped);
}

TEST(MarianModel, EveryVariantGivesWhatCTranslate2GivesForItsConversion) {
  const auto all = expected();
  ASSERT_EQ(all.at("variants").size(), 3u);
  size_t compared = 0, skipped = 0;
  for (const auto& [name, want] : all.at("variants").items()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(interop::model_format(marian_dir() + "/" + name), "marian");
    expect_ct2s_results(marian_dir() + "/" + name, want, all.at("targets"), compared, skipped);
    SCOPED_TRACE("the conversion");
    expect_ct2s_results(marian_dir() + "/converted/" + name, want, all.at("targets"), compared, skipped);
  }
  EXPECT_GE(compared, 3 * skipped) << "most hypotheses must end before the limit to be compared";
}

TEST(MarianModel, ASentenceGivesTheSameBitsAloneAndInABatch) {
  // Swish and GELU run one element at a time (kernels/activation.h), and the
  // decoder's zero start at position 0 only: a row's result is its own.
  const auto all = expected();
  for (const char* name : {"post_swish_tied_all", "post_gelu_multilingual"}) {
    SCOPED_TRACE(name);
    const auto loaded = interop::load_model(marian_dir() + "/" + name, "", torch::kCPU);
    std::vector<std::vector<int64_t>> sources;
    for (const auto& s : all.at("variants").at(name).at("sources")) {
      sources.push_back(test::token_ids(*loaded.vocabs.src, s));
    }
    decode::Translator t(loaded.model, loaded.vocabs, test::ct2_fixture_search(2));
    const auto together = t.translate_ids(sources);
    for (size_t i = 0; i < sources.size(); ++i) {
      const auto alone = t.translate_ids({sources[i]});
      EXPECT_EQ(alone[0].at(0).tokens, together[i].at(0).tokens) << i;
      EXPECT_EQ(alone[0].at(0).score, together[i].at(0).score) << i;  // bit for bit
    }
  }
}

TEST(MarianModel, OptionsBecomeOptionsOfOurModel) {
  const auto all = expected();
  for (const auto& [name, want] : all.at("variants").items()) {
    SCOPED_TRACE(name);
    const auto m = interop::import_model(marian_dir() + "/" + name);
    EXPECT_EQ(m.format, "Marian");
    EXPECT_EQ(m.model.pre_norm, want.at("pre_norm").get<bool>());
    EXPECT_TRUE(m.model.start_from_zero_embedding);
    EXPECT_TRUE(m.model.scale_embedding);
    EXPECT_TRUE(m.model.source_eos);
    EXPECT_FALSE(m.model.source_bos);
    // The vocabularies read as CTranslate2's converter reads them (quoted and complex keys included).
    EXPECT_EQ(m.src_tokens, want.at("source_vocabulary").get<std::vector<std::string>>());
    EXPECT_EQ(m.tgt_tokens, want.at("target_vocabulary").get<std::vector<std::string>>());
    // decoder.yml's search: beam-size 4, normalize 1; Marian's output limit of 3x the source.
    EXPECT_EQ(m.decoding.engine, "Marian");
    EXPECT_EQ(m.decoding.beam, 4);
    EXPECT_EQ(m.decoding.length_penalty, 1.0);
    EXPECT_EQ(m.decoding.max_len_a.value_or(0), 3.0);
  }
  EXPECT_EQ(interop::import_model(marian_dir() + "/post_swish_tied_all").model.activation, "swish");
  EXPECT_EQ(interop::import_model(marian_dir() + "/pre_relu_separate").model.activation, "relu");
  const auto multilingual = interop::import_model(marian_dir() + "/post_gelu_multilingual");
  EXPECT_EQ(multilingual.model.activation, "gelu_sigmoid");
  const std::map<std::string, std::string> tags = {{"deu", ">>deu<<"}, {"fra", ">>fra<<"}};
  EXPECT_EQ(multilingual.target_tags, tags);
  EXPECT_TRUE(interop::import_model(marian_dir() + "/post_swish_tied_all").target_tags.empty());
}

// An .npy array of int8 bytes (special:model.yml as Marian writes it).
std::string npy_of_text(const std::string& text) {
  std::string header = "{'descr': '|i1', 'fortran_order': False, 'shape': (" + std::to_string(text.size() + 1) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + text + '\0';
}

// A copy of the Swish fixture at `to` whose model.npz has `entry` replaced
// by `content` (or removed, where content is empty).
void copy_with_entry(const std::string& to, const std::string& entry, const std::string& content) {
  fs::create_directories(to);
  const std::string from = marian_dir() + "/post_swish_tied_all";
  for (const char* f : {"decoder.yml", "vocab.yml"}) fs::copy_file(from + "/" + f, to + "/" + f);
  const document::ZipArchive original(test::read_text(from + "/model.npz"), "model.npz");
  document::ZipArchive copy(document::ZipArchive::empty_archive(), "copy");
  for (const auto& name : original.names()) {
    if (name != entry) copy.put(name, original.read(name));
  }
  if (!content.empty()) copy.put(entry, content);
  test::write_file(to + "/model.npz", copy.bytes());
}

std::string options_with(const std::string& key, const std::string& value) {
  const auto npz = interop::read_npz(marian_dir() + "/post_swish_tied_all/model.npz");
  const auto& bytes = npz.at("special:model.yml");
  std::string text(static_cast<const char*>(bytes.data_ptr()), static_cast<size_t>(bytes.numel() - 1));
  const size_t at = text.find(key + ":");
  EXPECT_NE(at, std::string::npos) << key;
  const size_t end = text.find('\n', at);
  return text.substr(0, at) + key + ": " + value + text.substr(end);
}

TEST(MarianModel, BadFilesAreRefusedNamingTheFileAndTheFault) {
  test::TempDir dir;
  const auto load = [](const std::string& m) { interop::load_model(m, "", torch::kCPU); };
  // A truncated model.npz.
  const std::string cut = dir.path("cut");
  copy_with_entry(cut, "none", "");
  const std::string npz = test::read_text(cut + "/model.npz");
  test::write_file(cut + "/model.npz", npz.substr(0, npz.size() / 2));
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(cut); }, {cut + "/model.npz"}));
  // No options, options of another architecture, an array that is not one.
  const std::string bare = dir.path("bare");
  copy_with_entry(bare, "special:model.yml.npy", "");
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(bare); }, {"model.npz", "special:model.yml"}));
  const std::string tanh = dir.path("tanh");
  copy_with_entry(tanh, "special:model.yml.npy", npy_of_text(options_with("transformer-ffn-activation", "tanh")));
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(tanh); }, {"model.npz", "--transformer-ffn-activation tanh"}));
  const std::string aan = dir.path("aan");
  copy_with_entry(aan, "special:model.yml.npy", npy_of_text(options_with("transformer-decoder-autoreg", "average-attention")));
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(aan); }, {"model.npz", "average-attention"}));
  const std::string not_npy = dir.path("not_npy");
  copy_with_entry(not_npy, "Wemb.npy", "not an array");
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(not_npy); }, {"Wemb", "model.npz", "NUMPY"}));
  // A parameter of the wrong shape, named with Marian's name.
  const std::string shape = dir.path("shape");
  const auto w1 = interop::read_npz(marian_dir() + "/post_swish_tied_all/model.npz").at("encoder_l1_ffn_W1");
  std::string bad = test::read_text(marian_dir() + "/post_swish_tied_all/model.npz");
  const document::ZipArchive zip(bad, "m");
  std::string array = zip.read("encoder_l2_ffn_W1.npy");
  copy_with_entry(shape, "encoder_l2_ffn_W1.npy", array.substr(0, array.size() - 4 * w1.size(1)));
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(shape); }, {"encoder_l2_ffn_W1"}));
  // A vocabulary that repeats an id, or does not fit the embeddings.
  const std::string twice = dir.path("twice");
  copy_with_entry(twice, "none", "");
  test::write_file(twice + "/vocab.yml", "</s>: 0\n<unk>: 1\nw0: 1\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(twice); }, {twice + "/vocab.yml", "w0", "repeated"}));
  test::write_file(twice + "/vocab.yml", "</s>: 0\n<unk>: 1\nw0: 2\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(twice); }, {"vocabularies"}));
  test::write_file(twice + "/decoder.yml", "models: [model.npz]\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { load(twice); }, {twice + "/decoder.yml", "vocabs"}));
}

TEST(MarianModel, ExportsAFolderThatReadsBackToTheSameResults) {
  const auto all = expected();
  test::TempDir dir;
  for (const char* name : {"pre_relu_separate", "post_swish_tied_all"}) {
    SCOPED_TRACE(name);
    const auto loaded = interop::load_model(marian_dir() + "/" + name, "", torch::kCPU);
    const std::string out = dir.path(name);
    interop::export_marian(loaded, out);
    size_t compared = 0, skipped = 0;
    expect_ct2s_results(out, all.at("variants").at(name), all.at("targets"), compared, skipped);
    EXPECT_GT(compared, 0u);
    // Marian's own reader (cnpy) takes stored arrays only: the file is at least their bytes.
    int64_t bytes = 0;
    for (const auto& [n, t] : interop::read_npz(out + "/model.npz").arrays) bytes += t.numel() * t.element_size();
    EXPECT_GE(static_cast<int64_t>(fs::file_size(out + "/model.npz")), bytes);
    // The vocabularies in YAML read back token for token (quoted and complex keys included).
    const std::string src = fs::exists(out + "/vocab.yml") ? out + "/vocab.yml" : out + "/vocab.src.yml";
    const auto tokens = interop::read_marian_vocabulary(src);
    ASSERT_EQ(static_cast<int64_t>(tokens.size()), loaded.vocabs.src->size());
    for (int32_t id = 0; id < loaded.vocabs.src->size(); ++id) EXPECT_EQ(tokens[id], loaded.vocabs.src->id_to_piece(id));
    EXPECT_THROW(interop::export_marian(loaded, out), UsageError);  // never over an existing folder
  }
  // A model Marian cannot compute (ours: the decoder reads its start token) is refused, nothing written.
  storage::LoadedModel ours;
  ours.config.model = test::tiny_model_config();
  ours.model = test::tiny_model(1);
  EXPECT_TRUE(test::throws_with<UsageError>([&] { interop::export_marian(ours, dir.path("ours")); },
                                            {"start token", "--export ct2"}));
  EXPECT_FALSE(fs::exists(dir.path("ours")));
}

TEST(NpzFile, ReadsWhatNumPyWritesAndRefusesWhatItCannot) {
  const auto npz = interop::read_npz(marian_dir() + "/pre_relu_separate/model.npz");
  EXPECT_EQ(npz.at("encoder_l1_self_Wq").sizes(), torch::IntArrayRef({16, 16}));
  EXPECT_EQ(npz.at("encoder_l1_self_bq").sizes(), torch::IntArrayRef({1, 16}));
  EXPECT_EQ(npz.at("special:model.yml").scalar_type(), torch::kChar);
  const std::string good = npy_of_text("ab");
  const auto t = interop::parse_npy(good, "x");
  EXPECT_EQ(t.numel(), 3);
  EXPECT_EQ(t[1].item<int8_t>(), 'b');
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::parse_npy(good.substr(0, good.size() - 1), "x"); },
                                           {"x", "holds 2 bytes", "needs 3"}));
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::parse_npy(fortran, "x"); }, {"Fortran"}));
  std::string other = good;
  other.replace(other.find("|i1"), 3, "<f8");
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::parse_npy(other, "x"); }, {"'<f8'"}));
  // What we write reads back, every type and rank; NumPy's own bytes for a float vector.
  for (const auto& t : {torch::randn({3, 5}), torch::randn({7}), torch::arange(6, torch::kInt).reshape({1, 2, 3}),
                        torch::randn({2, 2}).to(torch::kHalf)}) {
    const auto back = interop::parse_npy(interop::npy_bytes(t), "t");
    EXPECT_TRUE(torch::equal(back, t));
    EXPECT_EQ(interop::npy_bytes(t).size() % 64, static_cast<size_t>(t.numel() * t.element_size()) % 64);
  }
  const std::string ones = interop::npy_bytes(torch::ones({2}));  // numpy.save(f, numpy.ones(2, numpy.float32)):
  EXPECT_EQ(ones.size(), 136u);
  EXPECT_EQ(ones.substr(0, 70), std::string("\x93NUMPY\x01\x00v\x00", 10) +
                                    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }   ");
}

}  // namespace
}  // namespace nmt
