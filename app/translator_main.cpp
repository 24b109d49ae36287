// translator: thin entry point; all logic lives in the nmt library.
#include "cli/run_main.h"
#include "cli/translator_cli.h"
#include "util/allocator.h"

NMT_DECODING_ALLOCATOR

int main(int argc, char** argv) {
  return nmt::cli::run_main("translator", [&] { return nmt::cli::translator_main(argc, argv); });
}
