// translator --serve: the command-line side of the HTTP server (serve/).
#pragma once

#include <torch/types.h>

#include <CLI/CLI.hpp>
#include <string>

#include "decode/translation.h"
#include "serve/server_options.h"

namespace nmt::cli {

struct ServeArgs {
  bool serve = false;
  serve::ServerOptions server;
};

void add_serve_options(CLI::App& app, ServeArgs& s);

// Listens at once (/health answers, /ready says 503), loads the model, then
// serves until SIGTERM or SIGINT, finishes the requests in flight and
// returns 0. `options` are the command line's decoding options.
int run_server(const ServeArgs& s, const std::string& model_dir, const std::string& checkpoint,
               const torch::Device& device, const decode::TranslatorOptions& options);

}  // namespace nmt::cli
