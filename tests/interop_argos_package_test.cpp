// Argos Translate packages: the sample model exported as a package folder
// and a .argosmodel, read back with the same numbers, served from a packages
// folder as LibreTranslate serves one (/languages, /translate in text, html
// and auto, /translate_file), and hostile packages refused.
#include <filesystem>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "decode/translation.h"
#include "interop/argos_package.h"
#include "interop/model_loader.h"
#include "tests/document_test_util.h"
#include "tests/sample_model_util.h"
#include "tests/serve_test_util.h"
#include "util/error.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ArgosPackage : public test::SampleModelTest {
 protected:
  static std::vector<std::string> test_lines(size_t n) {
    std::vector<std::string> lines;
    std::ifstream in(test::source_dir() + "/examples/sample/test.en");
    std::string line;
    while (lines.size() < n && std::getline(in, line)) lines.push_back(line);
    return lines;
  }
  // Texts and scores of `lines` under one explicit search, whatever the model's defaults.
  static std::vector<std::pair<std::string, double>> translate(const storage::LoadedModel& m,
                                                               const std::vector<std::string>& lines) {
    decode::TranslatorOptions options;
    options.search.beam = 4;
    options.search.length_penalty = 0.6;
    decode::Translator t(m.model, m.vocabs, options);
    std::vector<std::pair<std::string, double>> out;
    for (const auto& r : t.translate(lines)) out.emplace_back(r.texts.at(0), r.scores.at(0));
    return out;
  }
};

TEST_F(ArgosPackage, ExportedFolderAndArchiveTranslateAsTheModelItself) {
  const auto ours = storage::load_model_dir(test::sample_model_dir(), "", torch::kCPU);
  const auto lines = test_lines(30);
  const auto expected = translate(ours, lines);
  const std::string folder = dir_->path("packages/translate-en_de-1_0"), archive = dir_->path("en_de.argosmodel");
  interop::export_argos(ours, folder);
  interop::export_argos(ours, archive);
  for (const char* f : {"metadata.json", "sentencepiece.model", "model/model.bin", "model/config.json"}) {
    EXPECT_TRUE(fs::exists(folder + "/" + f)) << f;
  }
  const auto metadata = json::parse(test::read_text(folder + "/metadata.json"));
  EXPECT_EQ(metadata.at("from_code"), "en");
  EXPECT_EQ(metadata.at("to_code"), "de");
  for (const auto& path : {folder, archive}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(interop::model_format(path), "argos");
    const auto package = interop::load_model(path, "", torch::kCPU);
    EXPECT_EQ(package.config.data.src_lang, "en");
    EXPECT_EQ(package.config.data.tgt_lang, "de");
    ASSERT_TRUE(package.decoding.has_value());
    EXPECT_EQ(package.decoding->engine, "Argos Translate");
    EXPECT_EQ(package.decoding->beam, 4);
    EXPECT_EQ(package.decoding->length_penalty, 0.2);
    EXPECT_EQ(package.decoding->length_penalty_form, "power");
    // The same weights and pieces: the same texts and score bits.
    EXPECT_EQ(translate(package, lines), expected);
  }
  // Imported, it is a model directory of ours that knows its pair.
  const std::string imported = dir_->path("imported");
  interop::write_native_model_dir(interop::import_model(archive), imported);
  const auto native = interop::load_model(imported, "", torch::kCPU);
  EXPECT_EQ(native.config.data.src_lang, "en");
  EXPECT_EQ(translate(native, lines), expected);
}

TEST_F(ArgosPackage, APackagesFolderIsServedAsLibreTranslateServesIt) {
  const auto ours = storage::load_model_dir(test::sample_model_dir(), "", torch::kCPU);
  const std::string packages = dir_->path("served");
  interop::export_argos(ours, packages + "/translate-en_de-1_0");
  test::MultiModelServer server({packages + "/translate-en_de-1_0"}, serve::ServerOptions{});
  auto c = server.client();
  const auto languages = c.Get("/languages");
  ASSERT_TRUE(languages && languages->status == 200);
  const auto list = json::parse(languages->body);
  bool english_to_german = false;
  for (const auto& l : list) {
    if (l.at("code") == "en") english_to_german = l.at("targets") == json::array({"de"});
  }
  EXPECT_TRUE(english_to_german) << languages->body;

  const auto lines = test_lines(3);
  const auto cli = test::cli_translations(packages + "/translate-en_de-1_0", lines);
  auto post = [&](const json& body) {
    const auto r = c.Post("/translate", body.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
    return r ? json::parse(r->body) : json();
  };
  EXPECT_EQ(post({{"q", lines[0]}, {"source", "en"}, {"target", "de"}}).at("translatedText"), cli[0]);
  const auto detected = post({{"q", lines[1]}, {"source", "auto"}, {"target", "de"}});
  EXPECT_EQ(detected.at("translatedText"), cli[1]);
  EXPECT_EQ(detected.at("detectedLanguage").at("language"), "en");
  const auto html = post({{"q", "<p>" + lines[2] + "</p>"}, {"source", "en"}, {"target", "de"}, {"format", "html"}});
  EXPECT_EQ(html.at("translatedText"), "<p>" + cli[2] + "</p>");

  const auto file = c.Post("/translate_file",
                           httplib::MultipartFormDataItems{{"file", lines[0] + "\n" + lines[1] + "\n", "note.txt",
                                                            "text/plain"},
                                                           {"source", "en", "", ""},
                                                           {"target", "de", "", ""}});
  ASSERT_TRUE(file && file->status == 200) << (file ? file->body : "no answer");
  const std::string url = json::parse(file->body).at("translatedFileUrl");
  const auto download = c.Get(url.substr(url.find("/download_file/")));
  ASSERT_TRUE(download && download->status == 200);
  EXPECT_EQ(download->body, cli[0] + "\n" + cli[1] + "\n");
}

// A package's target_prefix (a target token) starts every translation and is
// not written: the translation is the model's with that token as a target
// prefix, less the token; on the command line, the server, and exported again.
TEST_F(ArgosPackage, ATargetPrefixStartsEveryTranslationUnwritten) {
  const auto ours = storage::load_model_dir(test::sample_model_dir(), "", torch::kCPU);
  const auto die = ours.vocabs.tgt->encode("Die");
  ASSERT_EQ(die.size(), 1u) << "a word the sample's target writes as one piece";
  const std::string tag = ours.vocabs.tgt->id_to_piece(die[0]);
  const std::string folder = dir_->path("tagged/translate-en_de-1_0");
  interop::export_argos(ours, folder);
  auto metadata = json::parse(test::read_text(folder + "/metadata.json"));
  metadata["target_prefix"] = tag;
  test::write_file(folder + "/metadata.json", metadata.dump());
  const auto package = interop::load_model(folder, "", torch::kCPU);
  ASSERT_TRUE(package.decoding.has_value());
  EXPECT_EQ(package.decoding->target_tag, tag);
  EXPECT_TRUE(package.decoding->replace_unknowns);

  const auto lines = test_lines(8);
  decode::TranslatorOptions options;  // argos-translate's search, as the package decodes
  options.search.beam = 4;
  options.search.length_penalty = 0.2;
  options.search.length_penalty_form = decode::LengthPenaltyForm::kPower;
  options.search.min_length = 1;
  options.search.max_len_a = 0;
  options.search.max_len_b = 256;
  options.search.ctranslate2_prefix = true;
  options.target_prefix = true;  // each line SOURCE<TAB>PREFIX
  std::vector<std::string> prefixed;
  for (const auto& l : lines) prefixed.push_back(l + "\tDie");
  const auto spelled = decode::Translator(ours.model, ours.vocabs, options).translate(prefixed);
  options.target_prefix = false;
  options.target_tag = tag;
  const auto tagged = decode::Translator(package.model, package.vocabs, options).translate(lines);
  std::vector<std::string> expected;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& text = spelled[i].texts.at(0);
    ASSERT_EQ(text.rfind("Die", 0), 0u) << text;
    expected.push_back(text.substr(text.find_first_not_of(' ', 3)));
    EXPECT_EQ(tagged[i].texts.at(0), expected.back()) << i;
    EXPECT_EQ(tagged[i].scores.at(0), spelled[i].scores.at(0)) << i;
  }
  // The command line and the server take it from the package.
  const auto cli = test::cli_translations(folder, {lines[0], lines[1]}, "--no-coverage-check");
  ASSERT_EQ(cli.size(), 2u);
  EXPECT_EQ(cli[0], expected[0]);
  EXPECT_EQ(cli[1], expected[1]);
  const auto checked = test::cli_translations(folder, {lines[0]});
  ASSERT_EQ(checked.size(), 1u);
  test::MultiModelServer server({folder}, serve::ServerOptions{});
  const auto r = server.client().Post("/translate", json({{"q", lines[0]}, {"source", "en"}, {"target", "de"}}).dump(),
                                      "application/json");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
  EXPECT_EQ(json::parse(r->body).at("translatedText"), checked[0]);
  // Exported again, the package keeps it.
  interop::export_argos(package, dir_->path("tagged/again.argosmodel"));
  const auto again = interop::load_model(dir_->path("tagged/again.argosmodel"), "", torch::kCPU);
  EXPECT_EQ(again.decoding->target_tag, tag);
  // A token the vocabulary lacks is refused, naming it.
  metadata["target_prefix"] = "__xx__";
  test::write_file(folder + "/metadata.json", metadata.dump());
  EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(folder, "", torch::kCPU); },
                                           {folder, "\"__xx__\"", "not a token of its target vocabulary"}));
}

TEST_F(ArgosPackage, HostilePackagesAreRefusedNamingTheFault) {
  const auto ours = storage::load_model_dir(test::sample_model_dir(), "", torch::kCPU);
  const std::string folder = dir_->path("hostile/translate-en_de-1_0");
  interop::export_argos(ours, folder);
  const auto archive = [&](const std::string& name, const std::vector<std::pair<std::string, std::string>>& entries) {
    const std::string path = dir_->path("hostile/" + name + ".argosmodel");
    test::write_file(path, test::zip_of(entries));
    return path;
  };
  const std::string metadata = test::read_text(folder + "/metadata.json");
  const auto refused = [&](const std::string& path, std::initializer_list<std::string_view> parts) {
    EXPECT_TRUE(test::throws_with<DataError>([&] { interop::load_model(path, "", torch::kCPU); }, parts)) << path;
  };
  refused(archive("outside", {{"pkg/metadata.json", metadata}, {"pkg/../../evil", "x"}}), {"outside its one top folder"});
  refused(archive("two", {{"a/metadata.json", metadata}, {"b/metadata.json", metadata}}), {"more than one folder"});
  refused(archive("bomb", {{"pkg/metadata.json", metadata}, {"pkg/model/model.bin", std::string(64 << 20, '\0')}}),
          {"zip bomb"});
  refused(archive("no_model", {{"pkg/metadata.json", metadata}}), {"no sentencepiece.model"});
  const std::string cut = dir_->path("hostile/cut.argosmodel");
  const std::string bytes = test::zip_of({{"pkg/metadata.json", metadata}});
  test::write_file(cut, bytes.substr(0, bytes.size() / 2));
  refused(cut, {cut, "zip"});
  // metadata.json without a language, or of another type.
  test::write_file(folder + "/metadata.json", R"({"from_code": "en", "type": "translate"})");
  refused(folder, {folder, "to_code"});
  test::write_file(folder + "/metadata.json", R"({"from_code": "en", "to_code": "de", "type": "sbd"})");
  refused(folder, {folder, "\"sbd\""});
  test::write_file(folder + "/metadata.json", "{not json");
  refused(folder, {folder, "metadata.json", "not valid JSON"});
}

}  // namespace
}  // namespace nmt
