// training.svg: the loss and BLEU panel, and the memory panel below it when
// metrics.jsonl's lines carry the process's memory.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "train/loss_plot.h"

namespace nmt::train {
namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(LossPlot, DrawsResidentAndPeakMemoryAgainstSteps) {
  const std::vector<nlohmann::json> lines = {
      {{"type", "train"}, {"step", 10}, {"loss", 5.0}, {"rss_mib", 100.0}, {"peak_rss_mib", 150.0}},
      {{"type", "valid"}, {"step", 10}, {"valid_loss", 4.5}, {"valid_bleu", 3.0}},
      {{"type", "train"}, {"step", 20}, {"loss", 4.0}, {"rss_mib", 200.0}, {"peak_rss_mib", 200.0}}};
  const std::string svg = render_training_svg(lines);
  EXPECT_NE(svg.find("height=\"700\""), std::string::npos);
  EXPECT_NE(svg.find("resident memory (MiB)"), std::string::npos);
  EXPECT_NE(svg.find("peak resident MiB"), std::string::npos);
  // The memory panel spans y 640 (0 MiB) to 460 (1.1 x the largest, 220 MiB);
  // x runs from 60 (step 0) to 700 (step 20). Resident 100 at step 10 and 200
  // at step 20; the peak is dashed.
  EXPECT_NE(svg.find("points=\"380,558.2 700,476.4 \""), std::string::npos) << svg;
  EXPECT_NE(svg.find("stroke-dasharray=\"6 3\" points=\"380,517.3 700,476.4 \""), std::string::npos) << svg;
  // The loss panel keeps its place: loss 5 (its maximum) at the top, y 40.
  EXPECT_NE(svg.find("points=\"380,40 700,106 \""), std::string::npos) << svg;
  EXPECT_EQ(count(svg, "<polyline"), 5u);  // train loss, valid loss, valid BLEU, resident, peak
}

TEST(LossPlot, WithoutMemoryFiguresThereIsNoMemoryPanel) {
  const std::vector<nlohmann::json> lines = {{{"type", "train"}, {"step", 5}, {"loss", 3.0}}};
  const std::string svg = render_training_svg(lines);
  EXPECT_NE(svg.find("height=\"420\""), std::string::npos);
  EXPECT_EQ(svg.find("memory"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 1u);
}

}  // namespace
}  // namespace nmt::train
