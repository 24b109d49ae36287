// A sentence's translation does not depend on its batchmates nor on the
// thread count: 300 lines of the sample test set translated by the model
// trained here on the bundled sample corpus, at batch sizes 1, 7 and 32 and
// on 1 to 4 threads, in fp32 and int8, beam 4 and greedy, give every line the
// same text and the same score, bit for bit. The server batches strangers'
// requests together (tests/serve_batcher_test.cpp checks its rounds), and
// caches, tests and users comparing outputs rely on it. Each case names the
// vector ISA and oneDNN ISA it ran with (forced down by NMT_CPU_ISA and
// ONEDNN_MAX_CPU_ISA, scripts/test_isa.sh).
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "decode/translation.h"
#include "kernels/packed_linear.h"
#include "kernels/vector_isa.h"
#include "storage/model_dir.h"
#include "tests/sample_model_util.h"
#include "tests/test_support.h"
#include "util/threads.h"

namespace nmt {
namespace {

std::vector<std::string> sample_lines(size_t n) {
  std::ifstream in(test::source_dir() + "/examples/sample/test.en");
  std::vector<std::string> lines;
  for (std::string line; lines.size() < n && std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Outcome {
  std::vector<std::string> texts;
  std::vector<double> scores;
};

class BatchInvariance : public test::SampleModelTest {
 protected:
  static Outcome translate(const storage::LoadedModel& loaded, const std::vector<std::string>& lines,
                           Precision precision, int64_t beam, int64_t batch, int threads) {
    // ATen's pool and OpenBLAS's both at `threads`: a program's default plan
    // (one thread a core in each), which the translator's decoding plan
    // narrows to OpenBLAS alone, and under which OpenBLAS's products would
    // split by the row count.
    const RestoreThreadSettings restore;
    at::set_num_threads(threads);
    set_blas_threads(threads);
    decode::TranslatorOptions options;
    options.precision = precision;
    options.batch_size = batch;
    options.search.beam = beam;
    decode::Translator translator(loaded.model, loaded.vocabs, options);
    Outcome o;
    for (const auto& t : translator.translate(lines)) {
      o.texts.push_back(t.texts.empty() ? std::string() : t.texts.front());
      o.scores.push_back(t.scores.empty() ? 0.0 : t.scores.front());
    }
    return o;
  }

  void expect_invariant(Precision precision, int64_t beam) {
    if (precision == Precision::kInt8 && !kernels::PackedLinear::available(torch::kChar)) {
      GTEST_SKIP() << "no int8 products here (no VNNI at the ISA in force): the translator refuses int8";
    }
    std::cout << "vector ISA " << kernels::isa_name(kernels::cpu_vector_isa()) << ", ONEDNN_MAX_CPU_ISA "
              << (std::getenv("ONEDNN_MAX_CPU_ISA") ? std::getenv("ONEDNN_MAX_CPU_ISA") : "(unset: the CPU's)")
              << std::endl;
    const auto loaded = storage::load_model_dir(test::sample_model_dir(), "", torch::kCPU);
    const auto lines = sample_lines(300);
    ASSERT_EQ(lines.size(), 300u);
    const Outcome reference = translate(loaded, lines, precision, beam, 1, 1);
    size_t nonempty = 0;
    for (const auto& t : reference.texts) nonempty += !t.empty();
    ASSERT_EQ(nonempty, lines.size()) << "every line translates";
    for (int64_t batch : {1, 7, 32}) {
      for (int threads : {1, 2, 3, 4}) {
        if (batch == 1 && threads == 1) continue;
        const Outcome got = translate(loaded, lines, precision, beam, batch, threads);
        size_t differ = 0;
        for (size_t i = 0; i < lines.size(); ++i) {
          // Scores compared as bits: equal doubles, not close ones.
          const bool same = got.texts[i] == reference.texts[i] &&
                            std::memcmp(&got.scores[i], &reference.scores[i], sizeof(double)) == 0;
          if (!same && ++differ <= 3) {
            ADD_FAILURE() << "line " << i << " at batch " << batch << ", " << threads << " threads: \"" << got.texts[i]
                          << "\" (" << got.scores[i] << ") alone at one thread: \"" << reference.texts[i] << "\" ("
                          << reference.scores[i] << ")";
          }
        }
        EXPECT_EQ(differ, 0u) << "lines that differ at batch " << batch << ", " << threads << " threads";
      }
    }
  }
};

TEST_F(BatchInvariance, Fp32BeamSearchGivesEveryLineTheSameBitsInAnyBatchOnAnyThreads) {
  expect_invariant(Precision::kFp32, 4);
}

TEST_F(BatchInvariance, Fp32GreedyGivesEveryLineTheSameBitsInAnyBatchOnAnyThreads) {
  expect_invariant(Precision::kFp32, 1);
}

TEST_F(BatchInvariance, Int8BeamSearchGivesEveryLineTheSameBitsInAnyBatchOnAnyThreads) {
  expect_invariant(Precision::kInt8, 4);
}

TEST_F(BatchInvariance, Int8GreedyGivesEveryLineTheSameBitsInAnyBatchOnAnyThreads) {
  expect_invariant(Precision::kInt8, 1);
}

}  // namespace
}  // namespace nmt
