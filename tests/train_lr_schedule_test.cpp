// Learning-rate schedules against their formulas, computed here independently.
#include <cmath>

#include <gtest/gtest.h>

#include "train/lr_schedule.h"

namespace nmt::train {
namespace {

TrainConfig schedule_config(const std::string& name, double lr, int64_t warmup) {
  TrainConfig c;
  c.schedule = name;
  c.lr = lr;
  c.warmup_steps = warmup;
  return c;
}

TEST(LrSchedule, InverseSqrtWarmsUpLinearlyThenDecaysAsOneOverSqrtStep) {
  const LrSchedule s(schedule_config("inverse_sqrt", 0.002, 400), /*d_model=*/256);
  EXPECT_DOUBLE_EQ(s.lr_at(1), 0.002 / 400);
  EXPECT_DOUBLE_EQ(s.lr_at(100), 0.0005);
  EXPECT_DOUBLE_EQ(s.lr_at(400), 0.002);      // the peak is train.lr itself, at the end of warm-up
  EXPECT_DOUBLE_EQ(s.lr_at(1600), 0.001);     // sqrt(400 / 1600) = 1/2
  EXPECT_DOUBLE_EQ(s.lr_at(40000), 0.0002);   // sqrt(400 / 40000) = 1/10
  EXPECT_NEAR(s.lr_at(401), 0.002 * std::sqrt(400.0 / 401.0), 1e-15);
  EXPECT_LT(s.lr_at(401), s.lr_at(400));      // decays right after the peak
}

TEST(LrSchedule, InverseSqrtDoesNotDependOnModelWidth) {
  const LrSchedule narrow(schedule_config("inverse_sqrt", 0.001, 100), 64);
  const LrSchedule wide(schedule_config("inverse_sqrt", 0.001, 100), 1024);
  for (int64_t step : {1, 50, 100, 2500}) EXPECT_DOUBLE_EQ(narrow.lr_at(step), wide.lr_at(step));
}

TEST(LrSchedule, NoamFollowsThePaper) {
  const LrSchedule s(schedule_config("noam", 1.0, 4000), 512);
  // d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
  EXPECT_NEAR(s.lr_at(100), std::pow(512, -0.5) * 100 * std::pow(4000, -1.5), 1e-15);
  EXPECT_NEAR(s.lr_at(4000), std::pow(512, -0.5) * std::pow(4000, -0.5), 1e-15);
  EXPECT_NEAR(s.lr_at(16000), std::pow(512, -0.5) * std::pow(16000, -0.5), 1e-15);
}

TEST(LrSchedule, InverseSqrtNeedsAWarmup) {
  TrainConfig c = schedule_config("inverse_sqrt", 0.001, 0);
  EXPECT_THROW(c.validate(), std::exception);
  c.warmup_steps = 10;
  EXPECT_NO_THROW(c.validate());
}

TEST(LrSchedule, ACoolDownFallsLinearlyToZeroOverTheLastShareOfTheBudget) {
  TrainConfig c = schedule_config("inverse_sqrt", 0.002, 400);
  c.cooldown = 0.25;
  const LrSchedule s(c, 256);
  const LrSchedule plain(schedule_config("inverse_sqrt", 0.002, 400), 256);
  EXPECT_DOUBLE_EQ(s.lr_at(1600, 0.0), plain.lr_at(1600));   // before it: the schedule's own rate
  EXPECT_DOUBLE_EQ(s.lr_at(1600, 0.75), plain.lr_at(1600));  // its start
  EXPECT_DOUBLE_EQ(s.lr_at(1600, 0.875), 0.001 * 0.5);       // half-way: (1 - 0.875) / 0.25 = 1/2
  EXPECT_NEAR(s.lr_at(1600, 0.99), 0.001 * 0.04, 1e-15);
  EXPECT_DOUBLE_EQ(s.lr_at(1600, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(s.lr_at(1600, 1.2), 0.0);                 // never negative past the budget
}

TEST(LrSchedule, TheBudgetSpentIsTheFurtherOfTokensAndSteps) {
  TrainConfig c;
  EXPECT_DOUBLE_EQ(budget_spent(c, 50, 1000), 0.0);  // no budget known in advance
  c.max_target_tokens = 4000;
  EXPECT_DOUBLE_EQ(budget_spent(c, 50, 1000), 0.25);
  c.max_steps = 100;
  EXPECT_DOUBLE_EQ(budget_spent(c, 50, 1000), 0.5);
  EXPECT_DOUBLE_EQ(budget_spent(c, 10, 3000), 0.75);
}

TEST(LrSchedule, ACoolDownNeedsABudgetKnownInAdvance) {
  TrainConfig c = schedule_config("constant", 0.001, 0);
  c.max_minutes = 60;
  c.cooldown = 0.2;
  EXPECT_THROW(c.validate(), std::exception);
  c.max_target_tokens = 1000000;
  EXPECT_NO_THROW(c.validate());
  c.cooldown = 1.0;
  EXPECT_THROW(c.validate(), std::exception);
  c.cooldown = -0.1;
  EXPECT_THROW(c.validate(), std::exception);
}

}  // namespace
}  // namespace nmt::train
