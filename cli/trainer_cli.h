#pragma once
namespace nmt::cli {
// Parses the trainer's command line (SPEC.md) and runs it.
int trainer_main(int argc, char** argv);
}  // namespace nmt::cli
