// OpenBLAS's kernels: the executables ask for the wide ones when Debian's
// OpenBLAS falls back to its SSE3 kernels on a CPU newer than its table, and
// leave every other choice, and any OPENBLAS_CORETYPE the user set, alone.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/train_test_util.h"
#include "util/blas_kernels.h"
#include "util/runtime_symbol.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;

const CpuVectors kAvx512{true, true}, kAvx2{false, true}, kSse{false, false};

TEST(BlasKernels, AsksForTheWidestKernelsTheCpuRunsOnlyAfterAFallback) {
  EXPECT_EQ(blas_core_to_ask_for("Prescott", kAvx512), "SkylakeX");
  EXPECT_EQ(blas_core_to_ask_for("Prescott", kAvx2), "Haswell");
  EXPECT_EQ(blas_core_to_ask_for("Nehalem", kAvx2), "Haswell");
  EXPECT_EQ(blas_core_to_ask_for("Core2", kAvx512), "SkylakeX");
  // The CPU runs nothing wider: keep OpenBLAS's choice.
  EXPECT_EQ(blas_core_to_ask_for("Prescott", kSse), "");
  // OpenBLAS knew the CPU: its choice stands, even where AVX-512 is there
  // (Zen 4 and 5 get "Zen", measured fast on those machines).
  for (const char* known : {"SkylakeX", "Cooperlake", "Haswell", "Zen", "Sandybridge", "SapphireRapids"})
    EXPECT_EQ(blas_core_to_ask_for(known, kAvx512), "") << known;
  EXPECT_EQ(blas_core_to_ask_for("", kAvx512), "");
  EXPECT_EQ(blas_core_to_ask_for("prescott", kAvx512), "") << "names are OpenBLAS's, case and all";
}

// The kernels a trainer run names in its log ("...; its kernels NAME[, asked
// for: OpenBLAS took this CPU for FALLBACK])"), started with `env` in front.
struct LoggedKernels {
  std::string name, fallback;
};

LoggedKernels kernels_of_a_run(const test::TempDir& dir, const std::string& run, const std::string& env) {
  const auto r = test::run_command(env + " " + test::shell_quote(test::trainer_binary()) + " --config " +
                                   test::shell_quote(dir.path("c.json")) + " --out " + test::shell_quote(dir.path(run)));
  EXPECT_EQ(r.code, 0) << r.output;
  const std::string log = test::read_text(dir.path(run) + "/train.log");
  const std::string key = "its kernels ", asked = ", asked for: OpenBLAS took this CPU for ";
  const auto start = log.find(key);
  EXPECT_NE(start, std::string::npos) << log;
  if (start == std::string::npos) return {};
  const auto end = log.find(')', start);
  const std::string said = log.substr(start + key.size(), end - start - key.size());
  const auto comma = said.find(asked);
  if (comma == std::string::npos) return {said, ""};
  return {said.substr(0, comma), said.substr(comma + asked.size())};
}

TEST(BlasKernels, TheTrainerRunsKernelsThatFitTheCpuAndKeepsTheUsersChoice) {
  if (!runtime_symbol<char* (*)()>("openblas_get_corename")) GTEST_SKIP() << "the BLAS in use is not OpenBLAS";
  if (!fs::exists(test::trainer_binary())) GTEST_SKIP() << "trainer executable not built";
  test::TempDir dir;
  auto config = test::tiny_training_config(dir.root());
  config["train"]["max_steps"] = 2;
  config["train"]["precision"] = "fp32";
  test::write_json(dir.path("c.json"), config);

  const auto cpu = this_cpu_vectors();
  const auto own = kernels_of_a_run(dir, "own", "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u NMT_BLAS_FALLBACK_CORE");
  ASSERT_FALSE(own.name.empty());
  EXPECT_EQ(blas_core_to_ask_for(own.name, cpu), "") << own.name << " is a fallback this CPU has wider kernels for";
  if (!own.fallback.empty()) {
    EXPECT_EQ(blas_core_to_ask_for(own.fallback, cpu), own.name);
  }

  const auto users = kernels_of_a_run(dir, "users", "env -u NMT_BLAS_FALLBACK_CORE OPENBLAS_CORETYPE=Prescott");
  EXPECT_EQ(users.name, "Prescott");
  EXPECT_EQ(users.fallback, "");
}

}  // namespace
}  // namespace nmt
