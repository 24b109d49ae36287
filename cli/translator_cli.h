#pragma once
namespace nmt::cli {
// Parses the translator's command line (docs/translating.md, docs/serving.md) and runs it.
int translator_main(int argc, char** argv);
}  // namespace nmt::cli
