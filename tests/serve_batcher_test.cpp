// The batcher alone: concurrent callers get exactly what translating their
// lines alone gives, with one worker or several, a request the queue cannot
// take is refused at once, and nothing is taken after stop().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <ATen/Parallel.h>

#include "kernels/packed_linear.h"
#include "serve/batcher.h"
#include "serve/served_models.h"
#include "storage/model_dir.h"
#include "tests/model_dir_test_util.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

class BatcherTest : public test::RandomModelDirTest {
 protected:
  void SetUp() override {
    loaded_ = storage::load_model_dir(model_dir(), "", torch::kCPU);
    translator_.emplace(loaded_.model, loaded_.vocabs, decode::TranslatorOptions{});
  }
  // What the translator gives each request's lines without the batcher.
  std::vector<std::vector<std::string>> alone(const std::vector<std::vector<std::string>>& requests) {
    std::vector<std::vector<std::string>> out;
    for (const auto& r : requests) {
      std::vector<std::string> texts;
      for (const auto& t : translator_->translate(r)) texts.push_back(t.texts.empty() ? "" : t.texts.front());
      out.push_back(texts);
    }
    return out;
  }
  storage::LoadedModel loaded_;
  std::optional<decode::Translator> translator_;
  ServerMetrics metrics_;
};

// Requests of three lines (one empty), and what translating each alone gives.
std::vector<std::vector<std::string>> eight_requests() {
  std::vector<std::vector<std::string>> requests;
  for (int i = 0; i < 8; ++i) {
    requests.push_back({"Ein Mann sieht " + std::to_string(i) + " Hunde.", "", "Eine Frau " + std::to_string(i) + "."});
  }
  return requests;
}

// Each request translated by its own caller thread, all at once.
std::vector<std::vector<std::string>> translate_at_once(Batcher& batcher,
                                                        const std::vector<std::vector<std::string>>& requests) {
  std::vector<std::vector<std::string>> got(requests.size());
  std::vector<std::thread> callers;
  for (size_t i = 0; i < requests.size(); ++i) {
    callers.emplace_back([&, i] {
      for (const auto& t : batcher.translate(requests[i])) got[i].push_back(t.texts.empty() ? "" : t.texts.front());
    });
  }
  for (auto& t : callers) t.join();
  return got;
}

TEST_F(BatcherTest, SeveralWorkersGiveWhatTheLinesAloneGiveAndRunTasksBetweenRounds) {
  const auto requests = eight_requests();
  const auto expected = alone(requests);
  BatcherOptions options;
  options.workers = 3;
  options.round_sentences = 3;
  options.max_wait_ms = 5;
  Batcher batcher(*translator_, options, metrics_);
  std::atomic<int> tasks{0};
  std::thread tasker([&] {
    for (int i = 0; i < 20; ++i) batcher.run_on_worker([&] { ++tasks; });
  });
  EXPECT_EQ(translate_at_once(batcher, requests), expected);
  tasker.join();
  EXPECT_EQ(tasks.load(), 20);
  EXPECT_NE(metrics_.prometheus_text().find("nmt_sentences_total 16\n"), std::string::npos);
}

TEST_F(BatcherTest, AWorkerTakesItsShareOfARequestWhileOthersAreFree) {
  // Ten sentences: one worker decodes them in one round; of two free
  // workers, the first takes five and leaves the rest to the other (or to
  // itself, in shares again, if it is done first).
  std::vector<std::string> lines;
  for (int i = 0; i < 10; ++i) lines.push_back("Ein Hund " + std::to_string(i) + ".");
  for (int64_t workers : {1, 2}) {
    ServerMetrics metrics;
    BatcherOptions options;
    options.workers = workers;
    Batcher batcher(*translator_, options, metrics);
    EXPECT_EQ(batcher.translate(lines).size(), 10u);
    const std::string text = metrics.prometheus_text();
    const auto at = text.find("\nnmt_rounds_total ");
    ASSERT_NE(at, std::string::npos) << text;
    const int rounds = std::stoi(text.substr(at + 18));
    if (workers == 1) {
      EXPECT_EQ(rounds, 1);
    } else {
      EXPECT_GE(rounds, 2) << text;
    }
  }
}

TEST_F(BatcherTest, ServedAloneOnOwnKernelsAModelGetsAWorkerACore) {
  BatcherOptions options;
  EXPECT_EQ(workers_for(*translator_, 2, options), 1) << "several models take turns";
  const int threads = at::get_num_threads();
  at::set_num_threads(3);
  if (kernels::PackedLinear::available(torch::kFloat)) EXPECT_EQ(workers_for(*translator_, 1, options), 3);
  options.workers = 2;
  EXPECT_EQ(workers_for(*translator_, 1, options), 2) << "asked for";
  at::set_num_threads(threads);
  decode::TranslatorOptions bf16;
  bf16.precision = Precision::kBf16;
  decode::Translator oneDNN(loaded_.model, loaded_.vocabs, bf16);
  EXPECT_EQ(workers_for(oneDNN, 1, BatcherOptions{}), 1) << "bf16 products are oneDNN's";
  EXPECT_EQ(workers_for(oneDNN, 1, options), 1) << "even when asked for";
}

TEST_F(BatcherTest, ConcurrentCallersGetWhatTheirLinesAloneGive) {
  const auto requests = eight_requests();
  BatcherOptions options;
  options.round_sentences = 5;  // requests are spread over rounds and rounds mix requests
  options.max_wait_ms = 50;
  Batcher batcher(*translator_, options, metrics_);
  EXPECT_EQ(translate_at_once(batcher, requests), alone(requests));
  EXPECT_NE(metrics_.prometheus_text().find("nmt_sentences_total 16\n"), std::string::npos);
}

TEST_F(BatcherTest, ALoneCallerIsNotKeptWaitingForCompany) {
  // The worker waits for as many requests as its last round served: with one
  // caller, none. A wait of 20 s would show; one short sentence takes well under one.
  BatcherOptions options;
  options.max_wait_ms = 20000;
  Batcher batcher(*translator_, options, metrics_);
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(batcher.translate({"Ein Hund."}).size(), 1u);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << "call " << i;
  }
}

TEST_F(BatcherTest, ARequestTheQueueCannotTakeIsRefusedAtOnce) {
  BatcherOptions options;
  options.round_sentences = 2;
  options.queue_sentences = 2;
  Batcher batcher(*translator_, options, metrics_);
  EXPECT_THROW(batcher.translate({"Ein Hund.", "Eine Katze.", "Ein Haus."}), QueueFull);
  EXPECT_EQ(batcher.translate({"Ein Hund.", ""}).size(), 2u);  // the batcher goes on
  batcher.stop();
  EXPECT_THROW(batcher.translate({"Ein Hund."}), ShuttingDown);
  EXPECT_EQ(batcher.translate({""}).size(), 1u);  // empty lines need no model, even now
}

TEST_F(BatcherTest, OptionsAreChecked) {
  BatcherOptions options;
  options.round_sentences = 0;
  EXPECT_THROW(options.validate(), UsageError);
  options.round_sentences = 20;
  options.round_tokens = 0;
  EXPECT_THROW(options.validate(), UsageError);
  options.round_tokens = 100;
  options.queue_sentences = 0;
  EXPECT_THROW(options.validate(), UsageError);
  options.queue_sentences = 10;
  EXPECT_NO_THROW(options.validate());
  options.workers = -1;
  EXPECT_THROW(options.validate(), UsageError);
}

}  // namespace
}  // namespace nmt::serve
