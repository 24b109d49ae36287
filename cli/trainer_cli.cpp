#include "cli/trainer_cli.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "distributed/job_env.h"
#include "distributed/launcher.h"
#include "storage/checkpoint_average.h"
#include "train/trainer.h"
#include "util/error.h"

namespace nmt::cli {
namespace {

// trainer --average CKPT... --output FILE
int average_main(const std::vector<std::string>& inputs, const std::string& output) {
  if (output.empty()) throw UsageError("--average needs --output FILE for the averaged checkpoint.");
  storage::Checkpoint averaged = storage::average_checkpoints(inputs);
  storage::save_checkpoint(output, averaged);
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
  app.add_option("--init-from", options.init_from,
                 "fine-tune a finished run (or one of its checkpoints, RUN_DIR/checkpoints/step-N.pt): its "
                 "weights, vocabulary and model shape on this config's data");
  app.add_flag("--init-keep-optimizer", options.init_keep_optimizer,
               "with --init-from: also its optimizer, learning-rate schedule and step (else fresh ones)");
  app.add_option("--average", average_inputs,
                 "average these checkpoints of one model into --output (no training)")
      ->expected(1, -1);
  app.add_option("--output", average_output, "with --average: the checkpoint file to write");
  distributed::LaunchOptions launch;
  std::string network_interface;
  auto* nproc = app.add_option("--nproc-per-node", launch.nproc_per_node,
                               "start N data-parallel ranks on this machine (as torchrun --nproc-per-node)");
  auto* nnodes = app.add_option("--nnodes", launch.nnodes, "machines in the job, each running this command");
  app.add_option("--node-rank", launch.node_rank, "this machine's place in the job, 0 to --nnodes - 1");
  app.add_option("--master-addr", launch.master_addr, "address of the machine of --node-rank 0");
  app.add_option("--master-port", launch.master_port, "its rendezvous port (default: free port, or 29500)");
  app.add_option("--network-interface", network_interface,
                 "network interface for the ranks' traffic, e.g. eth1 (or GLOO_SOCKET_IFNAME)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!average_inputs.empty()) return average_main(average_inputs, average_output);
  if (options.config_path.empty()) throw UsageError("--config FILE is required (or --average CKPT... --output FILE).");
  if (!average_output.empty()) throw UsageError("--output goes with --average CKPT...; training writes to --out DIR.");
  if (nproc->count() > 0 || nnodes->count() > 0) {
    train::resolve_config(options);  // a bad config is said once, not by every rank
    launch.network_interface = network_interface;
    return distributed::launch_local_ranks(launch, distributed::without_launcher_flags(argc, argv));
  }
  options.job = distributed::job_env_from_environment();
  if (options.job && !network_interface.empty()) options.job->network_interface = network_interface;
  train::TrainResult result = train::run_training(options);
  if (!result.writer) return 0;
  std::cerr << (result.interrupted ? "trainer: interrupted at step " : "trainer: done at step ") << result.step
            << "; model directory: " << result.out_dir << "\n";
  return 0;
}

}  // namespace nmt::cli
