#include "app/cli/trainer_cli.h"

#include <CLI/CLI.hpp>

#include "util/error.h"

namespace nmt::cli {

int trainer_main(int argc, char** argv) {
  CLI::App app{"Train a Transformer translation model."};
  std::string config_path;
  app.add_option("--config", config_path, "JSON config file")->required();
  app.parse(argc, argv);
  throw Error("trainer: not implemented yet", kExitOther);
}

}  // namespace nmt::cli
