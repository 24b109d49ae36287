// The training run's state and schedule on their own: best scores and early
// stopping's patience, the saved part's round trip, and when a run logs,
// validates, checkpoints and stops.
#include <gtest/gtest.h>

#include <thread>

#include "train/run_schedule.h"
#include "train/run_state.h"
#include "util/config.h"

namespace nmt::train {
namespace {

TEST(RunState, NewBestsResetPatienceAndStaleValidationsStopTheRun) {
  RunState s;
  EXPECT_TRUE(s.record_validation(-3.0, 2));  // the first score is a best
  EXPECT_TRUE(s.record_validation(-2.5, 2));
  EXPECT_FALSE(s.record_validation(-2.5, 2));  // equal is no improvement
  EXPECT_EQ(s.validations_without_improvement, 1);
  EXPECT_FALSE(s.early_stopped);
  EXPECT_TRUE(s.record_validation(-1.0, 2));
  EXPECT_EQ(s.validations_without_improvement, 0);
  EXPECT_FALSE(s.record_validation(-4.0, 2));
  EXPECT_FALSE(s.record_validation(-4.0, 2));
  EXPECT_TRUE(s.early_stopped);
  EXPECT_DOUBLE_EQ(s.best_score, -1.0);

  RunState no_patience;
  no_patience.record_validation(1.0, 0);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(no_patience.record_validation(0.5, 0));
  EXPECT_FALSE(no_patience.early_stopped);
  EXPECT_EQ(no_patience.validations_without_improvement, 0);  // not counted without patience
}

TEST(RunState, SavedPartRoundTripsAndOldCheckpointsStartTheClockAtZero) {
  RunState s;
  s.step = 42;
  s.record_validation(17.5, 3);
  s.record_validation(12.0, 3);
  s.valid_seconds = 3.25;
  const auto saved = s.to_json(99.5);
  RunState back;
  back.restore(saved);
  EXPECT_EQ(back.step, 42);
  EXPECT_TRUE(back.has_best);
  EXPECT_DOUBLE_EQ(back.best_score, 17.5);
  EXPECT_EQ(back.validations_without_improvement, 1);
  EXPECT_DOUBLE_EQ(back.elapsed_before, 99.5);
  EXPECT_DOUBLE_EQ(back.valid_seconds, 3.25);
  EXPECT_EQ(back.to_json(99.5), saved);

  auto old = saved;
  old.erase("elapsed_seconds");
  old.erase("valid_seconds");
  back.restore(old);
  EXPECT_DOUBLE_EQ(back.elapsed_before, 0.0);
  EXPECT_DOUBLE_EQ(back.valid_seconds, 0.0);
  EXPECT_THROW(back.restore(nlohmann::json::object()), nlohmann::json::exception);
}

TEST(RunState, TheClockAddsThisProcessToEarlierOnes) {
  RunState s;
  s.elapsed_before = 100.0;
  s.start_clock();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(s.elapsed_seconds(), 100.02);
  EXPECT_LT(s.elapsed_seconds(), 150.0);
}

Config schedule_config() {
  Config c;
  c.train.epochs = 3;
  c.train.max_steps = 0;
  c.train.accum_steps = 2;
  c.train.log_every_steps = 10;
  c.valid.every_steps = 100;
  c.checkpoint.every_steps = 250;
  return c;
}

TEST(RunSchedule, TotalStepsFromEpochsAccumulationRanksAndMaxSteps) {
  Config c = schedule_config();
  EXPECT_EQ(RunSchedule(c).total_steps(101, 1), 152);  // ceil(303 / 2)
  EXPECT_EQ(RunSchedule(c).total_steps(101, 4), 38);   // ceil(303 / 8)
  c.train.max_steps = 100;
  EXPECT_EQ(RunSchedule(c).total_steps(101, 1), 100);  // the smaller
  c.train.epochs = 0;
  EXPECT_EQ(RunSchedule(c).total_steps(101, 1), 100);  // max_steps alone
  EXPECT_TRUE(RunSchedule(c).may_start_epoch(1000));
  c.train.epochs = 3;
  EXPECT_TRUE(RunSchedule(c).may_start_epoch(2));
  EXPECT_FALSE(RunSchedule(c).may_start_epoch(3));
}

TEST(RunSchedule, LogsValidatesAndCheckpointsOnTheirStepsAndStopsForEachReason) {
  Config c = schedule_config();
  c.train.max_steps = 500;
  const RunSchedule schedule(c);
  EXPECT_TRUE(schedule.log_now(20));
  EXPECT_FALSE(schedule.log_now(25));
  EXPECT_TRUE(schedule.validate_now(200, false));
  EXPECT_FALSE(schedule.validate_now(201, false));
  EXPECT_TRUE(schedule.validate_now(201, /*last=*/true));
  EXPECT_TRUE(schedule.checkpoint_now(500, false));
  EXPECT_FALSE(schedule.checkpoint_now(501, false));
  EXPECT_TRUE(schedule.checkpoint_now(501, /*new_best=*/true));

  RunState s;
  s.step = 499;
  EXPECT_FALSE(schedule.finished(s, false));
  EXPECT_TRUE(schedule.finished(s, /*stop_requested=*/true));
  s.step = 500;
  EXPECT_TRUE(schedule.finished(s, false));
  s.step = 10;
  s.early_stopped = true;
  EXPECT_TRUE(schedule.finished(s, false));
  s.early_stopped = false;
  s.budget_spent = true;
  EXPECT_TRUE(schedule.finished(s, false));
}

TEST(RunSchedule, TheTimeBudgetLatchesOnceSpent) {
  Config c = schedule_config();
  RunState s;
  EXPECT_LT(RunSchedule(c).seconds_left(s), 0);  // no budget
  RunSchedule(c).check_time_budget(s);
  EXPECT_FALSE(s.budget_spent);
  c.train.max_minutes = 1;
  const RunSchedule schedule(c);
  s.elapsed_before = 30;
  s.start_clock();
  EXPECT_NEAR(schedule.seconds_left(s), 30, 1);
  schedule.check_time_budget(s);
  EXPECT_FALSE(s.budget_spent);
  s.elapsed_before = 61;
  schedule.check_time_budget(s);
  EXPECT_TRUE(s.budget_spent);
  EXPECT_DOUBLE_EQ(schedule.seconds_left(s), 0);
  s.elapsed_before = 0;  // latched: stays spent
  schedule.check_time_budget(s);
  EXPECT_TRUE(s.budget_spent);
}

}  // namespace
}  // namespace nmt::train
