#pragma once
namespace nmt::cli {
// Parses the translator's command line (README, "Translate" and "Serve") and runs it.
int translator_main(int argc, char** argv);
}  // namespace nmt::cli
