#include "app/cli/trainer_cli.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "train/trainer.h"

namespace nmt::cli {

int trainer_main(int argc, char** argv) {
  CLI::App app{"Train a Transformer translation model (see README.md)."};
  train::TrainerOptions options;
  app.add_option("--config", options.config_path, "JSON config file")->required();
  app.add_option("--out", options.out_dir, "output directory (default: runs/<config name>)");
  app.add_flag("--resume", options.resume, "continue from the newest intact checkpoint in the output directory");
  app.add_option("--set", options.overrides, "override one config key: KEY=VALUE (dotted key, JSON value)");
  app.add_option("--init-state-dict", options.init_state_dict,
                 "start from weights in the reference's state_dict format (.pt)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  train::TrainResult result = train::run_training(options);
  std::cerr << (result.interrupted ? "trainer: interrupted at step " : "trainer: done at step ") << result.step
            << "; model directory: " << result.out_dir << "\n";
  return 0;
}

}  // namespace nmt::cli
