#pragma once
namespace nmt::cli {
// Parses the translator's command line (SPEC.md) and runs it.
int translator_main(int argc, char** argv);
}  // namespace nmt::cli
