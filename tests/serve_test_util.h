// Shared by the server tests: a served random-weights model and the
// command-line translator's output for the same lines, to compare with.
#pragma once

#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/translator_serve.h"
#include "serve/http_server.h"
#include "serve/text_translation.h"
#include "storage/model_dir.h"
#include "tests/model_dir_test_util.h"
#include "tests/train_test_util.h"

namespace nmt::test {

// The translator executable's stdout lines for `lines` (fp32, one thread).
inline std::vector<std::string> cli_translations(const std::string& model_dir, const std::vector<std::string>& lines,
                                                 const std::string& options = "") {
  std::string args;
  for (const auto& line : lines) args += " " + shell_quote(line);
  // The braces make the inner 2>/dev/null win over run_command's 2>&1:
  // stdout alone, without the translator's "using ..." line on stderr.
  const auto r = run_command("{ " + shell_quote(binary_dir() + "/translator") +
                             " --device cpu --threads 1 --precision fp32 --model " + shell_quote(model_dir) + " " +
                             options + args + " 2>/dev/null; }");
  std::vector<std::string> out;
  std::istringstream in(r.output);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// A TranslationServer on a free loopback port with the model of `model_dir`.
class ServedModel {
 public:
  ServedModel(const std::string& model_dir, serve::ServerOptions options, decode::TranslatorOptions decoding,
              bool load = true)
      : model_dir_(model_dir), decoding_(decoding) {
    options.host = "127.0.0.1";
    options.port = 0;
    server_ = std::make_unique<serve::TranslationServer>(options);
    port_ = server_->bind();
    server_->start();
    if (load) load_model();
  }
  ~ServedModel() { server_->stop(); }
  void load_model() {
    loaded_ = storage::load_model_dir(model_dir_, "", torch::kCPU);
    const auto pair = data::language_pair(loaded_->config.data);
    translator_.emplace(loaded_->model, loaded_->vocabs, serve::serving_options(decoding_, pair.source, pair.target));  // as run_server
    server_->serve_model(*translator_, pair, "test model");
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c;
  }
  serve::TranslationServer& server() { return *server_; }
  decode::Translator& translator() { return *translator_; }

 private:
  std::string model_dir_;
  decode::TranslatorOptions decoding_;
  std::optional<storage::LoadedModel> loaded_;
  std::optional<decode::Translator> translator_;  // before server_: destroyed after it
  std::unique_ptr<serve::TranslationServer> server_;
  int port_ = 0;
};

// A TranslationServer on a free loopback port with several model
// directories, loaded as `translator --serve` loads them (model i has id i).
class MultiModelServer {
 public:
  MultiModelServer(const std::vector<std::string>& model_dirs, serve::ServerOptions options,
                   decode::TranslatorOptions decoding = cli::default_decoding()) {
    options.host = "127.0.0.1";
    options.port = 0;
    server_ = std::make_unique<serve::TranslationServer>(options);
    port_ = server_->bind();
    server_->start();
    std::vector<serve::ModelEntry> entries;
    for (const auto& dir : model_dirs) {
      served_.push_back(cli::load_served_model_dir(dir, "", torch::kCPU, decoding, {}));
      entries.insert(entries.end(), served_.back().pairs.entries.begin(), served_.back().pairs.entries.end());
    }
    server_->serve_models(entries);
  }
  ~MultiModelServer() { server_->stop(); }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c;
  }
  int port() const { return port_; }

 private:
  std::vector<cli::ServedModelDir> served_;  // before server_: destroyed after it
  std::unique_ptr<serve::TranslationServer> server_;
  int port_ = 0;
};

}  // namespace nmt::test
