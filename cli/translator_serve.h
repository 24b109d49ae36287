// translator --serve: the command-line side of the HTTP server (serve/).
#pragma once

#include <torch/types.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/model_decoding.h"
#include "cli/pair_translators.h"
#include "decode/translation.h"
#include "serve/server_options.h"
#include "storage/model_dir.h"

namespace nmt::cli {

struct ServeArgs {
  bool serve = false;
  std::string models_dir;  // --models-dir: every model directory under it
  std::vector<std::string> glossaries;  // --glossary: [SRC-TGT=]FILE each, for the pairs they name
  serve::ServerOptions server;
};

void add_serve_options(CLI::App& app, ServeArgs& s);

// The model directories directly under `folder` (those holding a
// config.json), sorted by name; a UsageError when there is none.
std::vector<std::string> model_dirs_under(const std::string& folder);

// The decoding options the translator starts from, on the command line and
// in the server alike, before its flags and a model directory's files: the
// coverage check on.
decode::TranslatorOptions default_decoding();

// One model directory loaded for the server as `translator --serve` loads
// it: its decoding.json fills in the beam and length penalty that `given`
// says the command line left out, its lengths.json the pieces and the
// coverage threshold; a model trained on several directions serves each of
// its pairs through a translator of its own, all on the one model.
struct ServedModelDir {
  storage::LoadedModel loaded;
  PairTranslators pairs;
  std::string decoding;  // which beam, length penalty, pieces and coverage check it decodes with, and why
};

ServedModelDir load_served_model_dir(const std::string& dir, const std::string& checkpoint, const torch::Device& device,
                                     decode::TranslatorOptions options, GivenSearchFlags given);

// Listens at once (/health answers, /ready says 503), loads the models one
// after the other, then serves until SIGTERM or SIGINT, finishes the
// requests in flight and returns 0. `options` are the command line's
// decoding options (each model's decoding.json fills in the beam and length
// penalty that `given` says the command line left out); `checkpoint` is for
// a single model only.
int run_server(const ServeArgs& s, const std::vector<std::string>& model_dirs, const std::string& checkpoint,
               const torch::Device& device, const decode::TranslatorOptions& options, GivenSearchFlags given);

}  // namespace nmt::cli
