// The translator executable as users run it: exit codes and messages for bad
// input, scoring existing files like sacreBLEU, and translation with a small
// model directory made here (random weights, real vocabulary).
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "data_test_util.h"
#include "kernels/packed_linear.h"
#include "model/transformer.h"
#include "storage/checkpoint.h"
#include "storage/state_dict.h"
#include "tests/model_dir_test_util.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/precision.h"
#include "vocab/vocabularies.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;

struct Run {
  int code = -1;
  std::string out, err;
  std::string last_err_line() const {
    std::istringstream in(err);
    std::string line, last;
    while (std::getline(in, line)) {
      if (!line.empty()) last = line;
    }
    return last;
  }
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string translator_binary() { return test::binary_dir() + "/translator"; }

// Runs the translator with `args` (already quoted), `input` on stdin.
Run run_translator(const std::string& args, const std::string& input = "") {
  test::TempDir io;
  test::write_file(io.path("in"), input);
  const std::string cmd = test::shell_quote(translator_binary()) + " " + args + " < " + test::shell_quote(io.path("in")) + " > " +
                          test::shell_quote(io.path("out")) + " 2> " + test::shell_quote(io.path("err"));
  Run r;
  const int status = std::system(cmd.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_all(io.path("out"));
  r.err = read_all(io.path("err"));
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

class TranslatorCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(translator_binary())) GTEST_SKIP() << "build the translator target first: " << translator_binary();
  }
};

TEST_F(TranslatorCli, MissingModelDirectoryIsADataErrorNamingIt) {
  const auto r = run_translator("--model /nonexistent/model-dir 'Ein Mann.'");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/model-dir"), std::string::npos) << r.err;
}

TEST_F(TranslatorCli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_translator("--no-such-flag").code, 2);
  EXPECT_EQ(run_translator("").code, 2) << "no --model and nothing to score";
  const auto wide = run_translator("--model x --beam 2 --nbest 3 'a'");
  EXPECT_EQ(wide.code, 2);
  EXPECT_NE(wide.err.find("--nbest"), std::string::npos) << wide.err;
  EXPECT_EQ(run_translator("--model x --beam 0 'a'").code, 2);
  EXPECT_EQ(run_translator("--model x --device tpu 'a'").code, 2);
  EXPECT_EQ(run_translator("--hypotheses h.txt").code, 2) << "--hypotheses needs --score";
  for (const char* bad : {"--sampling-topk -1", "--sampling-topp 0", "--sampling-temperature 0", "--repetition-penalty 0",
                          "--min-length -1", "--no-repeat-ngram-size -1"}) {
    const auto r = run_translator(std::string("--model x ") + bad + " 'a'");
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find(std::string(bad).substr(0, std::string(bad).find(' '))), std::string::npos) << r.err;
  }
  const auto help = run_translator("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--length-penalty"), std::string::npos);
}

TEST_F(TranslatorCli, ScoresHypothesisFilesLikeSacreBleu) {
  const std::string dir = test::sacrebleu_fixture_dir();
  ASSERT_TRUE(fs::exists(dir + "/expected.json")) << "no sacreBLEU fixture at " << dir;
  const auto expected = nlohmann::json::parse(read_all(dir + "/expected.json"));
  for (const auto& c : expected.at("cases")) {
    const std::string hyp = c.at("hyp").get<std::string>();
    const auto r = run_translator("--score " + test::shell_quote(dir + "/ref.txt") + " --hypotheses " + test::shell_quote(dir + "/" + hyp));
    ASSERT_EQ(r.code, 0) << hyp << ": " << r.err;
    const auto got = nlohmann::json::parse(r.last_err_line());
    EXPECT_NEAR(got.at("bleu").get<double>(), c.at("bleu").get<double>(), 1e-3) << hyp;
    EXPECT_NEAR(got.at("chrf2").get<double>(), c.at("chrf2").get<double>(), 1e-3) << hyp;
    EXPECT_NEAR(got.at("bp").get<double>(), c.at("bp").get<double>(), 1e-3) << hyp;
    EXPECT_EQ(got.at("sys_len"), c.at("sys_len")) << hyp;
    EXPECT_EQ(got.at("ref_len"), c.at("ref_len")) << hyp;
    EXPECT_EQ(got.at("counts"), c.at("counts")) << hyp;
  }
}

TEST_F(TranslatorCli, MisalignedOrMissingScoreFilesAreDataErrors) {
  test::TempDir d;
  test::write_file(d.path("ref"), "a b c\nd e f\n");
  test::write_file(d.path("hyp"), "a b c\n");
  const auto r = run_translator("--score " + test::shell_quote(d.path("ref")) + " --hypotheses " + test::shell_quote(d.path("hyp")));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find(d.path("hyp")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 lines"), std::string::npos) << r.err;
  const auto missing = run_translator("--score " + test::shell_quote(d.path("nope")) + " --hypotheses " + test::shell_quote(d.path("hyp")));
  EXPECT_EQ(missing.code, 3);
  EXPECT_NE(missing.err.find(d.path("nope")), std::string::npos) << missing.err;
}

// A model directory as the trainer leaves it, with random weights.
class TranslatorWithModel : public TranslatorCli {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    test::make_random_model_dir(*dir_, dir_->path("model"));
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string model_arg() { return "--threads 1 --model " + test::shell_quote(dir_->path("model")); }
  static test::TempDir* dir_;
};
test::TempDir* TranslatorWithModel::dir_ = nullptr;

TEST_F(TranslatorWithModel, TranslatesEachArgumentToOneLine) {
  const auto r = run_translator(model_arg() + " 'Ein Mann sieht dem Hund.' '' 'Ein Haus.'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  EXPECT_EQ(out[1], "");
  // Standard input gives the same, line by line.
  const auto piped = run_translator(model_arg() + " --beam 4", "Ein Mann sieht dem Hund.\n\nEin Haus.\n");
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.out, r.out);
}

// The log names the precision it decodes in and why: auto's choice for a
// translator (int8 where AVX-512 VNNI runs it), or the one asked for.
TEST_F(TranslatorWithModel, TheLogNamesThePrecisionAndWhy) {
  const auto chosen = choose_decoding_precision("auto", torch::kCPU, kernels::PackedLinear::available(torch::kChar));
  const auto automatic = run_translator(model_arg(), "Ein Haus.\n");
  ASSERT_EQ(automatic.code, 0) << automatic.err;
  EXPECT_NE(automatic.err.find(std::string("translator: decoding in ") + precision_name(chosen.precision) + " (" +
                               chosen.reason + ")."),
            std::string::npos)
      << automatic.err;
  const auto asked = run_translator(model_arg() + " --precision fp32", "Ein Haus.\n");
  ASSERT_EQ(asked.code, 0) << asked.err;
  EXPECT_NE(asked.err.find("translator: decoding in fp32 (asked for)."), std::string::npos) << asked.err;
}

// The decoding options on the command line: --target-prefix reads
// SOURCE<TAB>PREFIX lines, sampling with a seed repeats itself, and the
// options' defaults change nothing.
TEST_F(TranslatorWithModel, DecodingOptionsFromTheCommandLine) {
  const std::string input = "Ein Mann sieht dem Hund.\nEin Haus.\n";
  const auto plain = run_translator(model_arg(), input);
  ASSERT_EQ(plain.code, 0) << plain.err;
  const auto defaults = run_translator(model_arg() + " --sampling-topk 1 --sampling-temperature 3 --repetition-penalty 1 "
                                                     "--min-length 0 --no-repeat-ngram-size 0 --patience 1",
                                       input);
  EXPECT_EQ(defaults.out, plain.out);
  const auto prefixed = run_translator(model_arg() + " --target-prefix", "Ein Mann sieht dem Hund.\tman\nEin Haus.\n");
  ASSERT_EQ(prefixed.code, 0) << prefixed.err;
  const auto lines = lines_of(prefixed.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("man", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1], lines_of(plain.out)[1]) << "a line without a tab has no prefix";
  // --with-scores: the n-best line format for one hypothesis a line, the same text.
  const auto scored = run_translator(model_arg() + " --with-scores", input);
  ASSERT_EQ(scored.code, 0) << scored.err;
  const auto scored_lines = lines_of(scored.out), plain_lines = lines_of(plain.out);
  ASSERT_EQ(scored_lines.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(scored_lines[i].rfind(std::to_string(i) + " ||| " + plain_lines[i] + " ||| -", 0), 0u) << scored_lines[i];
  }
  const std::string sample = model_arg() + " --beam 1 --sampling-topk 0 --seed 7";
  const auto a = run_translator(sample, input), b = run_translator(sample, input);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(lines_of(a.out).size(), 2u);
}

// On two threads one batch at a time splits its sentences over them (the
// default), or every product (--no-split-batches), or two whole batches run at
// once: every line is translated in each mode. (That the modes translate
// alike is decode_parallel_batches_test's: this random model's near-uniform
// scores make its words flip with the rounding that other batch shapes bring.)
TEST_F(TranslatorWithModel, ThreadModesTranslateEveryLine) {
  std::string input;
  for (const char* line : {"Ein Mann sieht dem Hund.", "Ein Haus.", "Der Hund spielt mit dem Ball.", "Wo ist das Haus?",
                           "Ein Kind fährt!", "Ein Mann geht."}) {
    input += std::string(line) + "\n";
  }
  const std::string model = " --beam 3 --batch-size 4 --model " + test::shell_quote(dir_->path("model"));
  for (const char* mode : {"--threads 2", "--threads 2 --no-split-batches", "--threads 2 --parallel-batches 2"}) {
    const auto r = run_translator(mode + model, input);
    ASSERT_EQ(r.code, 0) << mode << ": " << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 6u) << mode << ": " << r.out;
    for (const auto& line : lines) EXPECT_FALSE(line.empty()) << mode << ": " << r.out;
  }
}

// --split-sentences: a paragraph translates exactly as its sentences on
// lines of their own, rebuilt with its spacing, and the summary counts them.
TEST_F(TranslatorWithModel, SplitSentencesTranslatesAParagraphAsItsSentences) {
  const std::vector<std::string> s = {"Ein Mann sieht dem Hund.", "Ein Kind fährt!", "Wo ist das Haus?",
                                      "Der Hund spielt mit dem Ball.", "Ein Mann geht."};
  const std::vector<std::string> gaps = {"  ", " ", "\t", " "};
  std::string lines, paragraph = s[0];
  for (size_t k = 0; k < s.size(); ++k) lines += s[k] + "\n";
  for (size_t k = 1; k < s.size(); ++k) paragraph += gaps[k - 1] + s[k];
  const auto each = run_translator(model_arg(), lines);
  ASSERT_EQ(each.code, 0) << each.err;
  const auto t = lines_of(each.out);
  ASSERT_EQ(t.size(), 5u);
  std::string expected;
  for (size_t k = 0; k < t.size(); ++k) {
    if (!t[k].empty()) expected += (expected.empty() ? "" : gaps[k - 1]) + t[k];
  }
  const auto r = run_translator(model_arg() + " --split-sentences", paragraph + "\n\nEin Haus.\n");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  EXPECT_EQ(out[0], expected);
  EXPECT_EQ(out[1], "");
  EXPECT_NE(r.err.find("3 line(s), 6 sentence(s)."), std::string::npos) << r.err;
  // Without the flag the paragraph is one sentence, longer than this tiny
  // model's 38 tokens: it is cut, at its sentence ends first, and counted.
  const auto whole = run_translator(model_arg(), paragraph + "\n");
  EXPECT_NE(whole.err.find("1 line(s), 1 sentence(s), 1 of them longer"), std::string::npos) << whole.err;
}

// A sentence of 5,000 characters without punctuation is not cut: it is
// translated in pieces that fit the model, and counted.
TEST_F(TranslatorWithModel, ASentenceLongerThanTheModelIsTranslatedInPiecesAndCounted) {
  std::string sentence;
  while (sentence.size() < 5000) sentence += "ein Mann sieht dem Hund und ";
  sentence.pop_back();
  const auto r = run_translator(model_arg(), sentence + "\nEin Haus.\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), 2u);
  const std::regex counted(R"(2 line\(s\), 2 sentence\(s\), 1 of them longer than 38 source tokens )"
                           R"(and translated in pieces \(([0-9]+) pieces translated in all\))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, counted)) << r.err;
  EXPECT_GE(std::stoi(m[1]), 30);  // about 1,000 tokens in pieces of at most 38
  // A line past the reader's 64 KiB is cut there, and the warning says so.
  const auto huge = run_translator(model_arg(), std::string(70000, 'x') + "\n");
  ASSERT_EQ(huge.code, 0) << huge.err;
  EXPECT_NE(huge.err.find("1 line(s) of standard input are longer than 65536 bytes (line 1)"), std::string::npos)
      << huge.err;
}

// --format html: each line a fragment, or --input one whole document; the
// markup stays, the text is translated as the text path translates it.
TEST_F(TranslatorWithModel, FormatHtmlKeepsMarkupPerLineAndForAWholeFile) {
  const auto plain = run_translator(model_arg(), "Ein Mann sieht dem Hund.\n");
  ASSERT_EQ(plain.code, 0) << plain.err;
  const auto r = run_translator(model_arg() + " --format html",
                                "<p>Ein Mann sieht dem Hund.</p>\n<script>x<y</script>\n\xFF\n");
  EXPECT_EQ(r.code, 3) << "the third fragment is not UTF-8: " << r.err;
  const auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  EXPECT_EQ(out[0], "<p>" + lines_of(plain.out).at(0) + "</p>");
  EXPECT_EQ(out[1], "<script>x<y</script>");
  EXPECT_EQ(out[2], "");
  EXPECT_NE(r.err.find("3 HTML document(s), 1 sentence(s)."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;

  test::TempDir d;
  const std::string page = "<!DOCTYPE html>\n<html><body>\n<p>Ein Mann sieht dem Hund.</p>\n</body></html>\n";
  test::write_file(d.path("page.html"), page);
  const auto file = run_translator(model_arg() + " --format html --input " + test::shell_quote(d.path("page.html")) +
                                   " --output " + test::shell_quote(d.path("out.html")));
  ASSERT_EQ(file.code, 0) << file.err;
  EXPECT_EQ(read_all(d.path("out.html")),
            "<!DOCTYPE html>\n<html><body>\n<p>" + lines_of(plain.out).at(0) + "</p>\n</body></html>\n");
  EXPECT_EQ(run_translator(model_arg() + " --format html --nbest 2", "<p>x</p>\n").code, 2);
  EXPECT_EQ(run_translator(model_arg() + " --format xml", "<p>x</p>\n").code, 2);
}

TEST_F(TranslatorWithModel, InvalidUtf8LineIsReportedAndOthersStillTranslate) {
  const auto good = run_translator(model_arg() + " 'Ein Mann.' 'Ein Hund.'");
  ASSERT_EQ(good.code, 0) << good.err;
  const auto r = run_translator(model_arg(), "Ein Mann.\nEin \xFF Hund.\nEin Hund.\n");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  const auto out = lines_of(r.out), expected = lines_of(good.out);
  ASSERT_EQ(out.size(), 3u) << r.out;
  EXPECT_EQ(out[0], expected[0]);
  EXPECT_EQ(out[1], "");
  EXPECT_EQ(out[2], expected[1]);
}

TEST_F(TranslatorWithModel, OutputFileAppearsOnlyWhenComplete) {
  test::TempDir d;
  test::write_file(d.path("in"), "Ein Mann.\nEin Hund.\nEin Kind.\n");
  test::write_file(d.path("ref2"), "A man.\nA dog.\n");
  test::write_file(d.path("ref3"), "A man.\nA dog.\nA child.\n");
  const auto bad = run_translator(model_arg() + " --input " + test::shell_quote(d.path("in")) + " --output " +
                                  test::shell_quote(d.path("out")) + " --score " + test::shell_quote(d.path("ref2")));
  EXPECT_EQ(bad.code, 3) << bad.err;
  EXPECT_NE(bad.err.find(d.path("ref2")), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(d.path("out")));
  for (const auto& e : fs::directory_iterator(d.root())) {
    EXPECT_EQ(e.path().filename().string().find("out"), std::string::npos) << "left behind: " << e.path();
  }
  const auto ok = run_translator(model_arg() + " --input " + test::shell_quote(d.path("in")) + " --output " +
                                 test::shell_quote(d.path("out")) + " --score " + test::shell_quote(d.path("ref3")));
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(lines_of(read_all(d.path("out"))).size(), 3u);
  const auto scores = nlohmann::json::parse(ok.last_err_line());
  EXPECT_TRUE(scores.at("bleu").is_number() && scores.at("chrf2").is_number());
  EXPECT_EQ(scores.at("ref_len").get<int64_t>(), 9);  // 13a: "A man ." x3
}

TEST_F(TranslatorWithModel, NBestPrintsIndexHypothesisScore) {
  const auto r = run_translator(model_arg() + " --beam 3 --nbest 3 'Ein Mann.' 'Ein Hund spielt.'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;
  const std::regex format(R"(^(\d+) \|\|\| (.*) \|\|\| (-?\d+\.\d{4})$)");
  for (size_t i = 0; i < out.size(); ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(out[i], m, format)) << out[i];
    EXPECT_EQ(std::stoul(m[1].str()), i / 3) << out[i];
  }
}

TEST_F(TranslatorWithModel, CorruptCheckpointAndForeignConfigAreDataErrors) {
  test::TempDir d;
  const std::string good = dir_->path("model") + "/checkpoints/last.pt";
  const std::string bytes = read_all(good);
  test::write_file(d.path("cut.pt"), bytes.substr(0, bytes.size() / 2));
  const auto cut = run_translator(model_arg() + " --checkpoint " + test::shell_quote(d.path("cut.pt")) + " 'Ein Mann.'");
  EXPECT_EQ(cut.code, 3);
  EXPECT_NE(cut.err.find(d.path("cut.pt")), std::string::npos) << cut.err;
  // Same directory, config of a wider model: the weights do not fit it.
  fs::copy(dir_->path("model"), d.path("other"), fs::copy_options::recursive);
  auto config = nlohmann::json::parse(read_all(d.path("other") + "/config.json"));
  config["model"]["d_model"] = 64;
  config["model"]["ffn_hidden"] = 96;
  test::write_file(d.path("other") + "/config.json", config.dump(2));
  const auto other = run_translator("--model " + test::shell_quote(d.path("other")) + " 'Ein Mann.'");
  EXPECT_EQ(other.code, 3) << other.err;
  EXPECT_EQ(other.err.find("terminate"), std::string::npos) << other.err;
}

TEST_F(TranslatorWithModel, ExportsStateDictAndDrawsAttention) {
  test::TempDir d;
  const auto exported = run_translator(model_arg() + " --export-state-dict " + test::shell_quote(d.path("w.pt")));
  ASSERT_EQ(exported.code, 0) << exported.err;
  const auto dict = storage::read_state_dict_file(d.path("w.pt"));
  EXPECT_TRUE(dict.count("decoder.linear.weight") && dict.count("encoder.layers.1.ffn.linear2.bias"));
  const auto drawn = run_translator(model_arg() + " --attention-svg " + test::shell_quote(d.path("a.svg")) +
                                    " --attention-layer 0 'Ein Mann sieht dem Hund.'");
  ASSERT_EQ(drawn.code, 0) << drawn.err;
  const std::string svg = read_all(d.path("a.svg"));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  const auto bad_layer = run_translator(model_arg() + " --attention-svg " + test::shell_quote(d.path("b.svg")) +
                                        " --attention-layer 5 'Ein Mann.'");
  EXPECT_EQ(bad_layer.code, 2) << bad_layer.err;
}

}  // namespace
}  // namespace nmt
