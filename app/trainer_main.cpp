// trainer: thin entry point; all logic lives in the nmt library.
#include "cli/run_main.h"
#include "cli/trainer_cli.h"
#include "util/blas_kernels.h"

int main(int argc, char** argv) {
  nmt::rerun_with_fitting_blas_kernels(argv);
  return nmt::cli::run_main("trainer", [&] { return nmt::cli::trainer_main(argc, argv); });
}
