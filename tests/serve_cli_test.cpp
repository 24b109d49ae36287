// translator --serve as users start it: it answers /health while loading and
// /ready once serving; SIGTERM with requests in flight answers them all and
// exits 0; a port in use and a model without a language pair are one clear
// error each.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "cli/model_pairs.h"
#include "tests/serve_test_util.h"

extern char** environ;

namespace nmt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A port nothing listens on right now.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A translator process with stdout and stderr in `log`.
class ServerProcess {
 public:
  ServerProcess(const std::vector<std::string>& args, const std::string& log) {
    std::vector<std::string> argv = {test::binary_dir() + "/translator"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (auto& a : argv) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (posix_spawn(&pid_, cargs[0], &actions, nullptr, cargs.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~ServerProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  void signal(int sig) {
    if (pid_ > 0) ::kill(pid_, sig);  // never kill(-1, ...)
  }
  // The exit code, or -1 if it has not exited within `seconds`.
  int wait_exit(double seconds) {
    if (pid_ <= 0) return -1;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
};

bool wait_until_ready(int port, double seconds) {
  httplib::Client c("127.0.0.1", port);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    const auto r = c.Get("/ready");
    if (r && r->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

class ServeCli : public test::RandomModelDirTest {
 protected:
  void SetUp() override {
    if (!fs::exists(test::binary_dir() + "/translator")) GTEST_SKIP() << "translator executable not built";
  }
};

TEST_F(ServeCli, SigtermAnswersTheRequestsInFlightThenExitsZero) {
  const int port = free_port();
  ServerProcess server({"--model", dir_->path("model"), "--serve", "--port", std::to_string(port), "--threads", "1",
                        "--beam", "4", "--batch-size", "8"},
                       dir_->path("serve.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(dir_->path("serve.log"));
  // Requests big enough to be still decoding when the signal comes.
  std::vector<std::string> lines;
  for (int i = 0; i < 60; ++i) lines.push_back("Ein Mann sieht " + std::to_string(i) + " Hunde im Park.");
  std::vector<std::future<int>> answers;
  for (int i = 0; i < 4; ++i) {
    answers.push_back(std::async(std::launch::async, [&] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(120, 0);
      const auto r =
          c.Post("/translate", json{{"q", lines}, {"source", "de"}, {"target", "en"}}.dump(), "application/json");
      if (!r || r->status != 200) return r ? r->status : -1;
      return static_cast<int>(json::parse(r->body).at("translatedText").size());
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  server.signal(SIGTERM);
  for (auto& a : answers) EXPECT_EQ(a.get(), 60) << test::read_text(dir_->path("serve.log"));
  EXPECT_EQ(server.wait_exit(60), 0) << test::read_text(dir_->path("serve.log"));
  const std::string log = test::read_text(dir_->path("serve.log"));
  EXPECT_NE(log.find("finishing the requests in flight"), std::string::npos) << log;
  // No longer listening.
  httplib::Client after("127.0.0.1", port);
  EXPECT_FALSE(after.Get("/health"));
}

// SIGHUP loads the model directory again and swaps it in; one that cannot be
// loaded leaves the old model serving.
TEST_F(ServeCli, SighupReloadsTheModelDirectoryAndABrokenOneKeepsTheOldModel) {
  const int port = free_port();
  const std::string current = dir_->path("current");
  fs::create_directory_symlink(dir_->path("model"), current);
  ServerProcess server({"--model", current, "--serve", "--port", std::to_string(port), "--threads", "1"},
                       dir_->path("hup.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(dir_->path("hup.log"));
  httplib::Client c("127.0.0.1", port);
  const std::string request = json{{"q", "Ein Hund."}, {"source", "de"}, {"target", "en"}}.dump();
  const auto before = c.Post("/translate", request, "application/json");
  ASSERT_TRUE(before);
  auto log_has = [&](const std::string& text, size_t times) {
    for (int i = 0; i < 600; ++i) {
      const std::string log = test::read_text(dir_->path("hup.log"));
      size_t n = 0;
      for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
      if (n >= times) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  };
  server.signal(SIGHUP);
  EXPECT_TRUE(log_has("translator: reloaded; serving de->en", 1)) << test::read_text(dir_->path("hup.log"));
  fs::remove(current);
  fs::create_directory(current);  // an empty directory: not a model
  server.signal(SIGHUP);
  EXPECT_TRUE(log_has("the reload failed, the models loaded before go on serving", 1))
      << test::read_text(dir_->path("hup.log"));
  const auto after = c.Post("/translate", request, "application/json");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(after->body, before->body);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(60), 0);
}

// --glossary: the served pair takes the file's terms, and even a model with
// random weights writes them (constrained search puts them in); SIGHUP reads
// the file again with the models.
TEST_F(ServeCli, TheServersGlossaryTermsAppearAndReloadWithTheModels) {
  const int port = free_port();
  std::ofstream(dir_->path("terms.tsv")) << "Hund\tdog\n";
  ServerProcess server({"--model", dir_->path("model"), "--serve", "--port", std::to_string(port), "--threads", "1",
                        "--glossary", "de-en=" + dir_->path("terms.tsv")},
                       dir_->path("glossary.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(dir_->path("glossary.log"));
  httplib::Client c("127.0.0.1", port);
  const std::string request = json{{"q", "Ein Hund im Park."}, {"source", "de"}, {"target", "en"}}.dump();
  auto translated = [&] {
    const auto r = c.Post("/translate", request, "application/json");
    return r && r->status == 200 ? json::parse(r->body)["translatedText"].get<std::string>() : std::string("(failed)");
  };
  EXPECT_NE(translated().find("dog"), std::string::npos) << test::read_text(dir_->path("glossary.log"));
  EXPECT_NE(test::read_text(dir_->path("glossary.log")).find("glossary: 1 term(s) for de->en"), std::string::npos);
  std::ofstream(dir_->path("terms.tsv")) << "Hund\tcat\n";
  server.signal(SIGHUP);
  for (int i = 0; i < 600 && test::read_text(dir_->path("glossary.log")).find("reloaded") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(translated().find("cat"), std::string::npos) << test::read_text(dir_->path("glossary.log"));
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(60), 0);
}

// A translation that stops at its length limit is never passed off as
// whole: the OpenNMT-style answer says "complete": false and /metrics counts
// it (the coverage check is on by default in the server).
TEST_F(ServeCli, ATranslationCutAtItsLengthLimitIsFlaggedAndCounted) {
  const int port = free_port();
  ServerProcess server({"--model", dir_->path("model"), "--serve", "--port", std::to_string(port), "--threads", "1",
                        "--beam", "1", "--max-len-a", "0", "--max-len-b", "3"},
                       dir_->path("serve.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(dir_->path("serve.log"));
  httplib::Client c("127.0.0.1", port);
  const auto r = c.Post("/translator/translate", json::array({{{"src", "Ein Mann sieht einen Hund im Park."}}}).dump(),
                        "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)[0][0].at("complete"), false) << r->body;
  const std::string metrics = c.Get("/metrics")->body;
  EXPECT_NE(metrics.find("\nnmt_length_limited_pieces_total 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nnmt_uncovered_pieces_total "), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nnmt_resplit_pieces_total "), std::string::npos) << metrics;
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(60), 0) << test::read_text(dir_->path("serve.log"));
}

TEST_F(ServeCli, APortInUseIsOneClearError) {
  const int port = free_port();
  ServerProcess first({"--model", dir_->path("model"), "--serve", "--port", std::to_string(port), "--threads", "1"},
                      dir_->path("first.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(dir_->path("first.log"));
  const auto second =
      test::run_command(test::shell_quote(test::binary_dir() + "/translator") + " --model " +
                        test::shell_quote(dir_->path("model")) + " --serve --port " + std::to_string(port));
  EXPECT_EQ(second.code, 1) << second.output;
  EXPECT_NE(second.output.find("Cannot listen on 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << second.output;
  first.signal(SIGTERM);
  EXPECT_EQ(first.wait_exit(60), 0);
}

TEST_F(ServeCli, AModelWithoutALanguagePairIsADataError) {
  const std::string model = dir_->path("nolang");
  fs::copy(dir_->path("model"), model, fs::copy_options::recursive);
  json config = json::parse(test::read_text(model + "/config.json"));
  config["data"]["train_src"] = "source.txt";
  config["data"]["train_tgt"] = "target.txt";
  test::write_file(model + "/config.json", config.dump(2));
  const auto r = test::run_command(test::shell_quote(test::binary_dir() + "/translator") + " --model " +
                                   test::shell_quote(model) + " --serve --port " + std::to_string(free_port()));
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("data.src_lang"), std::string::npos) << r.output;
  // Declaring the pair fixes it.
  config["data"]["src_lang"] = "de";
  config["data"]["tgt_lang"] = "en";
  test::write_file(model + "/config.json", config.dump(2));
  const int port = free_port();
  ServerProcess server({"--model", model, "--serve", "--port", std::to_string(port), "--threads", "1"},
                       dir_->path("nolang.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(dir_->path("nolang.log"));
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(60), 0);
}

TEST_F(ServeCli, ATrainedDirectoryRecordsItsPairAndServesIt) {
  test::TempDir work;
  test::write_json(work.path("c.json"), test::tiny_training_config(work.root()));  // train.en -> train.de
  const auto trained = test::run_command(test::shell_quote(test::trainer_binary()) + " --config " +
                                         test::shell_quote(work.path("c.json")) + " --out " +
                                         test::shell_quote(work.path("run")));
  ASSERT_EQ(trained.code, 0) << trained.output;
  const json config = json::parse(test::read_text(work.path("run/config.json")));
  EXPECT_EQ(config["data"]["src_lang"], "en");
  EXPECT_EQ(config["data"]["tgt_lang"], "de");
  const int port = free_port();
  ServerProcess server({"--model", work.path("run"), "--serve", "--port", std::to_string(port), "--threads", "1"},
                       work.path("serve.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(work.path("serve.log"));
  httplib::Client c("127.0.0.1", port);
  const auto languages = c.Get("/languages");
  ASSERT_TRUE(languages);
  EXPECT_EQ(json::parse(languages->body), json::parse(R"([{"code": "de", "name": "German", "targets": []},
                                                         {"code": "en", "name": "English", "targets": ["de"]}])"));
  const auto r = c.Post("/translate", R"({"q": "the cat sees a dog", "source": "en", "target": "de"})",
                        "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(60), 0);

  // The same directory found under --models-dir (beside a folder that is no model), and as --model twice.
  fs::create_directories(work.path("not-a-model"));
  const int port2 = free_port();
  ServerProcess folder({"--models-dir", work.root(), "--serve", "--port", std::to_string(port2), "--threads", "1"},
                       work.path("serve2.log"));
  ASSERT_TRUE(wait_until_ready(port2, 60)) << test::read_text(work.path("serve2.log"));
  httplib::Client c2("127.0.0.1", port2);
  const json models = json::parse(c2.Get("/translator/models")->body);
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].at("name"), "run");
  EXPECT_EQ(models[0].at("model_id"), 100);
  folder.signal(SIGTERM);
  EXPECT_EQ(folder.wait_exit(60), 0);
  const std::string translator = test::shell_quote(test::binary_dir() + "/translator");
  const auto twice = test::run_command(translator + " --model " + work.path("run") + " --model " + work.path("run") +
                                       " 'the cat'");
  EXPECT_EQ(twice.code, 2) << twice.output;
  EXPECT_NE(twice.output.find("only --serve serves several models"), std::string::npos) << twice.output;
  const auto empty = test::run_command(translator + " --serve --models-dir " + work.path("not-a-model"));
  EXPECT_EQ(empty.code, 2) << empty.output;
  EXPECT_NE(empty.output.find("holds no model ("), std::string::npos) << empty.output;
}

TEST_F(ServeCli, ServeTakesNoInputOfItsOwn) {
  const auto r = test::run_command(test::shell_quote(test::binary_dir() + "/translator") + " --model " +
                                   test::shell_quote(dir_->path("model")) + " --serve 'Ein Hund.'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--serve"), std::string::npos) << r.output;
}

// A model trained both ways with target-language tags (data.target_language_tags):
// its directory records the convention, the command line picks a pair with
// --source-lang/--target-lang (and refuses to guess), and one server lists
// and translates both pairs, each as the command line does.
TEST_F(ServeCli, AModelOfTwoDirectionsServesBothPairs) {
  test::TempDir work;
  auto config = test::tiny_training_config(work.root());  // train.en, train.de, valid.en, valid.de
  config["data"]["corpora"] = json::array({{{"src", work.path("train.en")}, {"tgt", work.path("train.de")}, {"tag", "<2de>"}},
                                           {{"src", work.path("train.de")}, {"tgt", work.path("train.en")}, {"tag", "<2en>"}}});
  config["data"].erase("train_src");
  config["data"].erase("train_tgt");
  config["data"]["target_language_tags"] = true;
  config["model"]["d_model"] = 32;
  config["model"]["ffn_hidden"] = 64;
  config["train"]["max_steps"] = 200;
  config["train"]["batch_tokens"] = 400;
  config["train"]["lr"] = 1.0;
  config["train"]["warmup_steps"] = 40;
  test::write_json(work.path("c.json"), config);
  const auto trained = test::run_command(test::shell_quote(test::trainer_binary()) + " --config " +
                                         test::shell_quote(work.path("c.json")) + " --out " +
                                         test::shell_quote(work.path("run")));
  ASSERT_EQ(trained.code, 0) << trained.output;
  // The convention round-trips through the directory.
  const auto loaded = storage::load_model_dir(work.path("run"), "", torch::kCPU);
  const auto pairs = cli::model_pairs(loaded, work.path("run"));
  ASSERT_EQ(data::describe_pairs(pairs), "en->de, de->en");
  EXPECT_EQ(pairs[0].tag, "<2de>");
  EXPECT_EQ(pairs[1].tag, "<2en>");
  EXPECT_GE(loaded.vocabs.src->piece_id("<2en>"), 0);

  const std::string translator = test::shell_quote(test::binary_dir() + "/translator") + " --model " +
                                 test::shell_quote(work.path("run"));
  const std::string german = "Ein Mann sieht dem Hund.", english = "A man sees the dog.";
  const auto unchosen = test::run_command(translator + " " + test::shell_quote(german));
  EXPECT_EQ(unchosen.code, 2) << unchosen.output;
  EXPECT_NE(unchosen.output.find("translates en->de, de->en; choose one with --source-lang and --target-lang"),
            std::string::npos)
      << unchosen.output;
  const auto unknown = test::run_command(translator + " --source-lang fr " + test::shell_quote(german));
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("does not translate fr->any; it translates en->de, de->en"), std::string::npos)
      << unknown.output;
  const auto chosen = test::run_command(translator + " --source-lang de --target-lang en " + test::shell_quote(german));
  EXPECT_EQ(chosen.code, 0) << chosen.output;
  EXPECT_NE(chosen.output.find("translating de->en (the model's language tag <2en>)"), std::string::npos)
      << chosen.output;
  // One flag is enough where it names one pair.
  const auto into_en = test::cli_translations(work.path("run"), {german}, "--split-sentences --target-lang en");
  const auto into_de = test::cli_translations(work.path("run"), {english}, "--split-sentences --source-lang en");
  ASSERT_EQ(into_en.size(), 1u);
  ASSERT_EQ(into_de.size(), 1u);
  // Each direction writes its target language (the toy corpus's articles:
  // a 200-step model may say no more than "A ..." in English).
  EXPECT_TRUE(into_en[0].find("the ") != std::string::npos || into_en[0].rfind("A ", 0) == 0) << into_en[0];
  EXPECT_TRUE(into_de[0].find("der ") != std::string::npos || into_de[0].find("dem ") != std::string::npos ||
              into_de[0].find("Ein ") != std::string::npos)
      << into_de[0];

  const int port = free_port();
  ServerProcess server({"--model", work.path("run"), "--serve", "--port", std::to_string(port), "--threads", "1",
                        "--precision", "fp32"},
                       work.path("serve.log"));
  ASSERT_TRUE(wait_until_ready(port, 60)) << test::read_text(work.path("serve.log"));
  httplib::Client c("127.0.0.1", port);
  EXPECT_EQ(json::parse(c.Get("/languages")->body), json::parse(R"([{"code": "de", "name": "German", "targets": ["en"]},
                                                                   {"code": "en", "name": "English", "targets": ["de"]}])"));
  const json models = json::parse(c.Get("/translator/models")->body);
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].at("name"), "run");
  EXPECT_EQ(models[1].at("name"), "run");
  for (const auto& [source, target, text, expected] :
       {std::tuple{"de", "en", german, into_en[0]}, std::tuple{"en", "de", english, into_de[0]}}) {
    const auto r = c.Post("/translate", json{{"q", text}, {"source", source}, {"target", target}}.dump(),
                          "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(json::parse(r->body).at("translatedText"), expected) << source << "->" << target;
    EXPECT_EQ(r->get_header_value("X-Translation-Pivot"), "") << "one model, no pivot";
  }
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait_exit(60), 0);
}

}  // namespace
}  // namespace nmt
