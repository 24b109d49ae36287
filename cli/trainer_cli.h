#pragma once
namespace nmt::cli {
// Parses the trainer's command line (docs/training.md) and runs it.
int trainer_main(int argc, char** argv);
}  // namespace nmt::cli
