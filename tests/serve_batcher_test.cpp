// The batcher alone: concurrent callers get exactly what translating their
// lines alone gives, a request the queue cannot take is refused at once, and
// nothing is taken after stop().
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "serve/batcher.h"
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
  storage::LoadedModel loaded_;
  std::optional<decode::Translator> translator_;
  ServerMetrics metrics_;
};

TEST_F(BatcherTest, ConcurrentCallersGetWhatTheirLinesAloneGive) {
  std::vector<std::vector<std::string>> requests;
  for (int i = 0; i < 8; ++i) {
    requests.push_back({"Ein Mann sieht " + std::to_string(i) + " Hunde.", "", "Eine Frau " + std::to_string(i) + "."});
  }
  std::vector<std::vector<std::string>> expected;
  for (const auto& r : requests) {
    std::vector<std::string> texts;
    for (const auto& t : translator_->translate(r)) texts.push_back(t.texts.empty() ? "" : t.texts.front());
    expected.push_back(texts);
  }
  BatcherOptions options;
  options.round_sentences = 5;  // requests are spread over rounds and rounds mix requests
  options.max_wait_ms = 50;
  Batcher batcher(*translator_, options, metrics_);
  std::vector<std::vector<std::string>> got(requests.size());
  std::vector<std::thread> callers;
  for (size_t i = 0; i < requests.size(); ++i) {
    callers.emplace_back([&, i] {
      for (const auto& t : batcher.translate(requests[i])) got[i].push_back(t.texts.empty() ? "" : t.texts.front());
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(got, expected);
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
}

}  // namespace
}  // namespace nmt::serve
