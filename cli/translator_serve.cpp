#include "cli/translator_serve.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/model_pairs.h"
#include "cli/pair_translators.h"
#include "interop/model_loader.h"
#include "memory/glossary.h"
#include "serve/http_server.h"
#include "serve/text_translation.h"
#include "storage/model_dir.h"
#include "util/error.h"
#include "util/stop_signal.h"

namespace nmt::cli {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::vector<std::string> model_dirs_under(const std::string& folder) {
  if (!fs::is_directory(folder)) throw UsageError("--models-dir " + folder + " is not a directory.");
  std::vector<std::string> dirs;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if ((entry.is_directory() || entry.is_regular_file()) && !interop::model_format(entry.path().string()).empty()) {
      dirs.push_back(entry.path().string());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  if (dirs.empty()) {
    throw UsageError("--models-dir " + folder + " holds no model (a folder with a config.json, as the trainer "
                     "writes, a CTranslate2 model with its model.bin, or an Argos Translate package).");
  }
  return dirs;
}

void add_serve_options(CLI::App& app, ServeArgs& s) {
  auto& o = s.server;
  app.add_flag("--serve", s.serve, "Serve translations over HTTP (LibreTranslate and OpenNMT-py APIs)");
  app.add_option("--host", o.host, "With --serve: address to listen on (0.0.0.0: all)")->capture_default_str();
  app.add_option("--port", o.port, "With --serve: port to listen on")->capture_default_str();
  app.add_flag("--no-ui{false}", o.ui, "With --serve: no web page at /");
  app.add_option("--models-dir", s.models_dir, "With --serve: serve every model directory in this folder");
  app.add_option("--api-key", o.access.api_key, "With --serve: the one key every translation request must carry");
  app.add_option("--api-keys", o.access.api_keys_file,
                 "With --serve: file of API keys, one a line: KEY [REQUESTS_PER_MINUTE] (0 or none: no limit)");
  app.add_flag("--require-api-key", o.access.require_api_key, "With --api-keys: refuse requests without a key");
  app.add_option("--req-limit", o.access.req_limit,
                 "With --serve: requests per minute per client address without a key (0: no limit)")
      ->capture_default_str();
  app.add_option("--suggestions", o.suggestions,
                 "With --serve: an SQLite file (made if absent) where POST /suggest stores corrections; /translate "
                 "answers a stored sentence with its correction");
  app.add_option("--max-files", o.files.max_files, "With --serve: translated files kept for download at most")
      ->capture_default_str();
  app.add_option("--file-keep-seconds", o.files.keep_seconds, "With --serve: how long a translated file is kept")
      ->capture_default_str();
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
  app.add_option("--serve-workers", o.batching.workers,
                 "With --serve: rounds translated at once, each on one core, where the precision's products are "
                 "this library's kernels (fp32, or int8 with VNNI) and one model is served (0: one per --threads); "
                 "else always 1, every round on all --threads")
      ->capture_default_str();
  app.add_option("--queue-sentences", o.batching.queue_sentences,
                 "With --serve: sentences waiting at most; beyond it requests get 429")
      ->capture_default_str();
  app.add_option("--http-threads", o.http_threads, "With --serve: connections served at once")->capture_default_str();
  app.add_option("--timeout", o.timeout_seconds, "With --serve: seconds to read a request or write an answer")
      ->capture_default_str();
}

decode::TranslatorOptions default_decoding() {
  decode::TranslatorOptions options;
  options.coverage.check = true;
  return options;
}

ServedModelDir load_served_model_dir(const std::string& dir, const std::string& checkpoint, const torch::Device& device,
                                     decode::TranslatorOptions options, GivenSearchFlags given) {
  ServedModelDir e{interop::load_model(dir, checkpoint, device), {}, {}};
  const auto pairs = model_pairs(e.loaded, dir);
  e.decoding = apply_model_decoding(options.search, e.loaded.decoding, storage::ModelDirPaths(dir).decoding, given);
  const std::string output = apply_model_output(options, e.loaded.decoding, given);
  if (!output.empty()) e.decoding += "; " + output;
  options.source_language = pairs.front().source;
  options.source_tag = pairs.front().tag;
  const std::string computed = complete_length_profile(e.loaded, dir, options);
  if (!computed.empty()) std::cerr << "translator: " << computed << ".\n";
  e.decoding += "; " +
               apply_model_lengths(options, e.loaded.lengths, storage::ModelDirPaths(dir).lengths,
                                   max_source_tokens(e.loaded.config.model), given);
  std::string name = fs::path(dir).filename().string();
  if (name.empty()) name = fs::path(dir).parent_path().filename().string();  // "dir/"
  e.pairs = pair_translators(e.loaded, pairs, options, name,
                             e.loaded.checkpoint_path + " (step " + std::to_string(e.loaded.step) +
                                 (e.loaded.why.empty() ? "" : "; " + e.loaded.why) + ")");
  return e;
}

namespace {

// Every model directory loaded, its pairs' entries logged; `stop`: give up between directories.
// Each served pair's terms from the glossary files given (--glossary).
void set_glossaries(serve::ModelSet& set, const std::vector<memory::TermBase>& glossaries) {
  if (glossaries.empty()) return;
  std::vector<size_t> used(glossaries.size(), 0);
  for (auto& e : set.entries) {
    memory::Glossary merged;  // later files win
    for (size_t g = 0; g < glossaries.size(); ++g) {
      const auto terms = memory::pair_glossary(glossaries[g], e.pair.source, e.pair.target, set.entries.size() == 1);
      used[g] += terms.empty() ? 0 : 1;
      merged = merged.merged_with(terms);
    }
    if (merged.empty()) continue;
    std::cerr << "translator: glossary: " << merged.size() << " term(s) for " << e.pair.source << "->" << e.pair.target
              << "\n";
    e.translator->set_glossary(std::make_shared<const memory::Glossary>(std::move(merged)));
  }
  for (size_t g = 0; g < glossaries.size(); ++g) {
    if (used[g] == 0) throw DataError("The glossary " + glossaries[g].path + " holds no terms for any served pair.");
  }
}

serve::ModelSet load_model_set(const std::vector<std::string>& model_dirs, const std::vector<std::string>& glossary_files,
                               const std::string& checkpoint, const torch::Device& device,
                               const decode::TranslatorOptions& options, GivenSearchFlags given, bool stop_between) {
  auto loaded = std::make_shared<std::vector<ServedModelDir>>();
  serve::ModelSet set;
  const auto glossaries = memory::read_glossaries(glossary_files);
  for (const auto& dir : model_dirs) {
    if (stop_between && stop_requested()) break;
    loaded->push_back(load_served_model_dir(dir, checkpoint, device, options, given));
    for (const auto& added : loaded->back().pairs.entries) {
      set.entries.push_back(added);
      const auto& e = set.entries.back();
      std::cerr << "translator: model " << 100 + set.entries.size() - 1 << ": " << e.pair.source << "->" << e.pair.target
                << " with " << e.description << "; " << loaded->back().decoding << "\n";
      for (size_t i = 0; i + 1 < set.entries.size(); ++i) {
        if (set.entries[i].pair.source == e.pair.source && set.entries[i].pair.target == e.pair.target) {
          std::cerr << "translator: warning: model " << 100 + set.entries.size() - 1 << " (" << e.name
                    << ") translates the same pair as model " << 100 + i << " (" << set.entries[i].name
                    << "); LibreTranslate's API uses the first, OpenNMT-py's id reaches both\n";
        }
      }
    }
  }
  set_glossaries(set, glossaries);
  set.owner = std::move(loaded);
  return set;
}

}  // namespace

int run_server(const ServeArgs& s, const std::vector<std::string>& model_dirs, const std::string& checkpoint,
               const torch::Device& device, const decode::TranslatorOptions& options, GivenSearchFlags given) {
  install_stop_signal_handlers();
  install_reload_signal_handler();
  const serve::ServerOptions& server_options = s.server;
  serve::TranslationServer server(server_options);  // owns the models it serves
  const std::string address = "http://" + server_options.host + ":" + std::to_string(server.bind());
  server.start();
  std::cerr << "translator: listening on " << address << " (loading " << model_dirs.size()
            << " model(s); /ready says 503 until then)\n";
  auto set = load_model_set(model_dirs, s.glossaries, checkpoint, device, options, given, /*stop_between=*/true);
  if (!stop_requested()) {
    server.serve(std::move(set));
    server.set_loader(
        [=] { return load_model_set(model_dirs, s.glossaries, checkpoint, device, options, given, false); });
    std::cerr << "translator: serving " << server.pairs() << " on " << address
              << " (SIGHUP or POST /reload loads the model directories again)\n";
  }
  while (!stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!take_reload_request()) continue;
    try {
      std::cerr << "translator: SIGHUP: reloading the models; the loaded ones serve until the new ones are checked\n";
      const std::string pairs = server.reload();
      std::cerr << "translator: reloaded; serving " << pairs << "\n";
    } catch (const std::exception& e) {
      std::cerr << "translator: the reload failed, the models loaded before go on serving: " << e.what() << "\n";
    }
  }
  std::cerr << "translator: signal " << stop_signal_number() << ": finishing the requests in flight\n";
  server.stop();
  std::cerr << "translator: stopped\n";
  return kExitOk;
}

}  // namespace nmt::cli
