#pragma once
namespace nmt::cli {
// Parses the trainer's command line (README, "Train on your own data") and runs it.
int trainer_main(int argc, char** argv);
}  // namespace nmt::cli
