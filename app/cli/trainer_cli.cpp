#include "app/cli/trainer_cli.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "model/checkpoint_average.h"
#include "train/trainer.h"
#include "util/error.h"

namespace nmt::cli {
namespace {

// trainer --average CKPT... --output FILE
int average_main(const std::vector<std::string>& inputs, const std::string& output) {
  if (output.empty()) throw UsageError("--average needs --output FILE for the averaged checkpoint.");
  model::Checkpoint averaged = model::average_checkpoints(inputs);
  model::save_checkpoint(output, averaged);
  std::cerr << "trainer: wrote the mean of " << inputs.size() << " checkpoints to " << output << "\n";
  return 0;
}

}  // namespace

int trainer_main(int argc, char** argv) {
  CLI::App app{"Train a Transformer translation model (see README.md)."};
  train::TrainerOptions options;
  std::vector<std::string> average_inputs;
  std::string average_output;
  app.add_option("--config", options.config_path, "JSON config file");
  app.add_option("--out", options.out_dir, "output directory (default: runs/<config name>)");
  app.add_flag("--resume", options.resume, "continue from the newest intact checkpoint in the output directory");
  app.add_option("--set", options.overrides, "override one config key: KEY=VALUE (dotted key, JSON value)");
  app.add_option("--init-state-dict", options.init_state_dict,
                 "start from weights in the reference's state_dict format (.pt)");
  app.add_option("--average", average_inputs,
                 "average these checkpoints of one model into --output (no training)")
      ->expected(1, -1);
  app.add_option("--output", average_output, "with --average: the checkpoint file to write");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!average_inputs.empty()) return average_main(average_inputs, average_output);
  if (options.config_path.empty()) throw UsageError("--config FILE is required (or --average CKPT... --output FILE).");
  if (!average_output.empty()) throw UsageError("--output goes with --average CKPT...; training writes to --out DIR.");
  train::TrainResult result = train::run_training(options);
  std::cerr << (result.interrupted ? "trainer: interrupted at step " : "trainer: done at step ") << result.step
            << "; model directory: " << result.out_dir << "\n";
  return 0;
}

}  // namespace nmt::cli
