// The fixture of the server tests with several models: four tiny models
// trained once per trainer build (de->en, en->de, en->fr, fr->en on the toy
// corpus, whose French is a word-for-word transform of its English) and the
// sentences the tests send. Used by tests/serve_models_test.cpp and
// tests/serve_clients_test.cpp.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/serve_test_util.h"

namespace nmt::test {

// The toy corpus's English, word for word in (ungrammatical but
// unmistakable) French: enough for CLD2 and for a model to learn.
inline std::string toy_french(const std::string& english) {
  static const std::map<std::string, std::string> words = {
      {"A", "Un"},         {"the", "le"},       {"and", "et"},       {"man", "homme"},   {"woman", "femme"},
      {"dog", "chien"},    {"child", "enfant"}, {"bicycle", "vélo"}, {"street", "rue"},  {"ball", "balle"},
      {"house", "maison"}, {"sees", "voit"},    {"rides", "conduit"}, {"plays", "joue"}, {"with", "avec"},
      {"walks", "marche"}, {"to", "vers"}};
  std::istringstream in(english.substr(0, english.size() - 1));  // without the final "."
  std::string word, out;
  while (in >> word) out += (out.empty() ? "" : " ") + words.at(word);
  return out + ".";
}

class ServeModels : public ::testing::Test {
 protected:
  // ctest runs each test in a process of its own: the models are trained
  // once per trainer build, into the build folder, under a lock that makes a
  // second process wait for the first.
  static void SetUpTestSuite() {
    const auto stamp = std::filesystem::last_write_time(trainer_binary()).time_since_epoch().count();
    root_ = binary_dir() + "/test_models/serve_models-" + std::to_string(stamp);
    std::filesystem::create_directories(root_);
    const int lock = ::open((root_ + "/lock").c_str(), O_CREAT | O_RDWR, 0644);
    ASSERT_GE(lock, 0);
    ::flock(lock, LOCK_EX);
    model_dirs_.clear();
    for (const auto& [source, target] : kPairs) model_dirs_.push_back(root_ + "/models/" + source + "-" + target);
    if (!std::filesystem::exists(root_ + "/trained")) {
      train_models();
      if (!HasFatalFailure()) write_file(root_ + "/trained", "");  // only once all four are whole
    }
    ::flock(lock, LOCK_UN);
    ::close(lock);
  }
  static void train_models() {
    auto path = [](const std::string& name) { return root_ + "/" + name; };
    std::vector<std::string> en, de, fr;
    make_toy_corpus(180, en, de);
    for (const auto& e : en) fr.push_back(toy_french(e));
    const std::map<std::string, std::vector<std::string>*> corpus = {{"en", &en}, {"de", &de}, {"fr", &fr}};
    for (const auto& [lang, lines] : corpus) {
      write_file(path("train." + lang), join_lines({lines->begin(), lines->begin() + 160}));
      write_file(path("valid." + lang), join_lines({lines->begin() + 160, lines->end()}));
    }
    for (size_t m = 0; m < kPairs.size(); ++m) {
      const auto& [source, target] = kPairs[m];
      const std::string name = source + "-" + target;
      std::filesystem::remove_all(model_dirs_[m]);  // a run cut short before
      std::filesystem::create_directories(path("scratch-" + name));
      nlohmann::json config = tiny_training_config(path("scratch-" + name));  // its toy files are not used
      config["model"]["d_model"] = 32;
      config["model"]["ffn_hidden"] = 64;
      config["train"]["max_steps"] = kSteps;
      config["train"]["batch_tokens"] = 400;
      config["train"]["lr"] = 1.0;
      config["train"]["warmup_steps"] = 40;
      config["data"]["train_src"] = path("train." + source);
      config["data"]["train_tgt"] = path("train." + target);
      config["data"]["valid_src"] = path("valid." + source);
      config["data"]["valid_tgt"] = path("valid." + target);
      write_json(path(name + ".json"), config);
      const auto r = run_command(trainer_binary() + " --config " + path(name + ".json") + " --out " +
                                       model_dirs_[m]);
      ASSERT_EQ(r.code, 0) << r.output;
    }
  }
  static nlohmann::json post(httplib::Client& c, const std::string& path, const nlohmann::json& body, int expected = 200,
                   httplib::Headers* headers = nullptr) {
    const auto r = c.Post(path, body.dump(), "application/json");
    if (!r) {
      ADD_FAILURE() << path << ": no answer";
      return nlohmann::json();
    }
    EXPECT_EQ(r->status, expected) << path << " " << body.dump() << ": " << r->body;
    if (headers) *headers = r->headers;
    return nlohmann::json::parse(r->body);
  }
  static std::vector<std::string> cli(size_t model, const std::vector<std::string>& lines) {
    return cli_translations(model_dirs_.at(model), lines, "--split-sentences");
  }

  static inline const std::vector<std::pair<std::string, std::string>> kPairs = {
      {"de", "en"}, {"en", "de"}, {"en", "fr"}, {"fr", "en"}};
  static constexpr int kSteps = 250;  // enough to say something: the pivot test compares words, not empty lines
  static inline std::string root_;
  static inline std::vector<std::string> model_dirs_;
  const std::map<std::string, std::vector<std::string>> sentences_ = {
      {"en", {"A man sees the dog and the woman walks to the house.", "A child plays with the ball."}},
      {"de", {"Ein Mann sieht dem Hund und der Frau geht zu dem Haus.", "Ein Kind spielt mit dem Ball."}},
      {"fr", {"Un homme voit le chien et le femme marche vers le maison.", "Un enfant joue avec le balle."}}};
};


}  // namespace nmt::test
