#include "cli/translator_serve.h"

#include <chrono>
#include <iostream>
#include <optional>
#include <thread>

#include "data/language_pair.h"
#include "serve/http_server.h"
#include "serve/text_translation.h"
#include "storage/model_dir.h"
#include "util/error.h"
#include "util/stop_signal.h"

namespace nmt::cli {
namespace {

data::LanguagePair served_pair(const storage::LoadedModel& loaded, const std::string& model_dir) {
  const auto pair = data::language_pair(loaded.config.data);
  if (!pair.known()) {
    throw DataError("The model directory " + model_dir + " does not say which languages it translates: set " +
                    "data.src_lang and data.tgt_lang in " + storage::ModelDirPaths(model_dir).config +
                    " (the training files' names, " + loaded.config.data.train_src + " and " +
                    loaded.config.data.train_tgt + ", end in no language code such as .de or .en).");
  }
  return pair;
}

}  // namespace

void add_serve_options(CLI::App& app, ServeArgs& s) {
  auto& o = s.server;
  app.add_flag("--serve", s.serve, "Serve translations over HTTP (LibreTranslate and OpenNMT-py APIs)");
  app.add_option("--host", o.host, "With --serve: address to listen on (0.0.0.0: all)")->capture_default_str();
  app.add_option("--port", o.port, "With --serve: port to listen on")->capture_default_str();
  app.add_option("--api-key", o.api_key, "With --serve: key every translation request must carry");
  app.add_option("--cors-origin", o.cors_origin, "With --serve: origin allowed by CORS (e.g. * or https://x.org)");
  app.add_option("--max-request-bytes", o.max_body_bytes, "With --serve: largest request body")->capture_default_str();
  app.add_option("--max-request-chars", o.limits.max_chars, "With --serve: characters per request at most")
      ->capture_default_str();
  app.add_option("--max-request-sentences", o.limits.max_sentences, "With --serve: lines per request at most")
      ->capture_default_str();
  app.add_option("--round-sentences", o.batching.round_sentences,
                 "With --serve: sentences of pending requests translated together at most (as length-sorted "
                 "batches of --batch-size)")
      ->capture_default_str();
  app.add_option("--round-tokens", o.batching.round_tokens,
                 "With --serve: source tokens of pending requests translated together at most")
      ->capture_default_str();
  app.add_option("--batch-wait-ms", o.batching.max_wait_ms,
                 "With --serve: how long a free translator waits for more requests to join a round")
      ->capture_default_str();
  app.add_option("--queue-sentences", o.batching.queue_sentences,
                 "With --serve: sentences waiting at most; beyond it requests get 429")
      ->capture_default_str();
  app.add_option("--http-threads", o.http_threads, "With --serve: connections served at once")->capture_default_str();
  app.add_option("--timeout", o.timeout_seconds, "With --serve: seconds to read a request or write an answer")
      ->capture_default_str();
}

int run_server(const ServeArgs& s, const std::string& model_dir, const std::string& checkpoint,
               const torch::Device& device, const decode::TranslatorOptions& options) {
  install_stop_signal_handlers();
  const serve::ServerOptions& server_options = s.server;
  std::optional<decode::Translator> translator;  // declared first: it must outlive the server's batcher
  serve::TranslationServer server(server_options);
  const std::string address = "http://" + server_options.host + ":" + std::to_string(server.bind());
  server.start();
  std::cerr << "translator: listening on " << address << " (loading the model; /ready says 503 until then)\n";
  const auto loaded = storage::load_model_dir(model_dir, checkpoint, device);
  const auto pair = served_pair(loaded, model_dir);
  translator.emplace(loaded.model, loaded.vocabs, serve::serving_options(options, pair.source));
  const std::string description = loaded.checkpoint_path + " (step " + std::to_string(loaded.step) +
                                  (loaded.why.empty() ? "" : "; " + loaded.why) + ")";
  server.serve_model(*translator, pair, description);
  std::cerr << "translator: serving " << pair.source << "->" << pair.target << " with " << description << " on "
            << address << "\n";
  while (!stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::cerr << "translator: signal " << stop_signal_number() << ": finishing the requests in flight\n";
  server.stop();
  std::cerr << "translator: stopped\n";
  return kExitOk;
}

}  // namespace nmt::cli
