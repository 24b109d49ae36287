// A full disk (ENOSPC) or a file size limit (EFBIG) while training: the run
// stops with one message naming the path it could not write, the checkpoints
// written before stay intact, no temporary file is left, and once there is
// room again --resume goes on from the newest checkpoint to the end. The
// translator's --output likewise.
#include <sys/statvfs.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "storage/checkpoint.h"
#include "storage/model_dir.h"
#include "tests/train_test_util.h"

namespace nmt::test {
namespace {

namespace fs = std::filesystem;

std::string train_command(const std::string& config, const std::string& out, bool resume) {
  return trainer_binary() + " --config " + config + " --out " + out + (resume ? " --resume" : "");
}

std::string step_four(const std::string& out) { return storage::ModelDirPaths(out).step_checkpoint(4); }

std::vector<std::string> temporaries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename().string().find(".tmp") != std::string::npos) out.push_back(entry.path().string());
  }
  return out;
}

// The first run trains 4 steps (checkpoints at 2 and 4) into `out`.
void train_four_steps(const std::string& config, const std::string& out) {
  const CommandResult first = run_command(train_command(config, out, false) + " --set train.max_steps=4");
  ASSERT_EQ(first.code, 0) << first.output;
  ASSERT_TRUE(fs::exists(step_four(out))) << first.output;
}

// What must hold after a resume that ran out of room: a clear message, the
// step-4 checkpoint intact and still the newest, no temporary files.
void expect_stopped_cleanly(const CommandResult& r, const std::string& out, const std::string& reason) {
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("trainer: error: Cannot "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(out + "/"), std::string::npos) << "the message should name the path:\n" << r.output;
  EXPECT_NE(r.output.find(reason), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
  std::string why;
  EXPECT_TRUE(storage::checkpoint_is_intact(step_four(out), &why)) << why;
  EXPECT_EQ(storage::load_checkpoint(out + "/checkpoints/last.pt").step(), 4);
  EXPECT_EQ(temporaries(out), std::vector<std::string>{});
}

void expect_resume_finishes(const std::string& config, const std::string& out) {
  const CommandResult again = run_command(train_command(config, out, true));
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("resumed from step 4"), std::string::npos) << again.output;
  EXPECT_EQ(storage::load_checkpoint(out + "/checkpoints/last.pt").step(), 12);
}

nlohmann::json disk_test_config(const std::string& dir) {
  auto config = tiny_training_config(dir, /*pairs=*/80);
  config["checkpoint"]["every_steps"] = 2;
  config["checkpoint"]["keep_last"] = 10;
  return config;
}

// EFBIG: a file size limit smaller than a checkpoint, as `ulimit -f` sets it,
// with SIGXFSZ ignored so that write() fails instead of killing the process.
TEST(TrainFullDisk, FileSizeLimitStopsTheRunAndResumeGoesOn) {
  TempDir dir;
  write_json(dir.path("config.json"), disk_test_config(dir.root()));
  const std::string out = dir.path("run");
  train_four_steps(dir.path("config.json"), out);
  const auto checkpoint_kib = static_cast<int64_t>(fs::file_size(step_four(out)) / 1024);
  ASSERT_GT(checkpoint_kib, 8);
  const std::string limited = "trap '' XFSZ; ulimit -f " + std::to_string(checkpoint_kib / 2) + "; exec ";
  const CommandResult r = run_command(limited + train_command(dir.path("config.json"), out, true));
  expect_stopped_cleanly(r, out, "File too large");
  expect_resume_finishes(dir.path("config.json"), out);

  // The translator's --output is written whole or not at all: over the limit,
  // one message naming it, and neither the file nor its temporary is left.
  std::string input;
  for (int i = 0; i < 2000; ++i) input += "A dog runs.\n";
  write_file(dir.path("input.txt"), input);
  const std::string translated = dir.path("translated.txt");
  const CommandResult t = run_command("trap '' XFSZ; ulimit -f 1; exec " + binary_dir() + "/translator --model " + out +
                                      " --beam 1 --input " + dir.path("input.txt") + " --output " + translated);
  EXPECT_EQ(t.code, 1) << t.output;
  EXPECT_NE(t.output.find("translator: error: Writing the output file " + translated), std::string::npos) << t.output;
  EXPECT_FALSE(fs::exists(translated));
  EXPECT_EQ(temporaries(dir.root()), std::vector<std::string>{});
}

// ENOSPC on a small tmpfs, where the test may mount one (root); the disk is
// filled up to less than a checkpoint, then freed.
TEST(TrainFullDisk, FullDiskStopsTheRunAndResumeGoesOnOnceSpaceIsFreed) {
  TempDir dir;
  const std::string mount_point = dir.path("disk");
  fs::create_directories(mount_point);
  if (run_command("mount -t tmpfs -o size=32m nmt_test " + mount_point).code != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { run_command("umount " + path); }
  } unmount{mount_point};
  write_json(dir.path("config.json"), disk_test_config(dir.root()));
  const std::string out = mount_point + "/run";
  train_four_steps(dir.path("config.json"), out);
  const auto checkpoint_bytes = static_cast<int64_t>(fs::file_size(step_four(out)));
  struct statvfs st {};
  ASSERT_EQ(::statvfs(mount_point.c_str(), &st), 0);
  const int64_t free_bytes = static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
  const int64_t filler = free_bytes - checkpoint_bytes / 2;
  ASSERT_GT(filler, 0);
  const CommandResult fill =
      run_command("head -c " + std::to_string(filler) + " /dev/zero > " + mount_point + "/filler");
  ASSERT_EQ(fill.code, 0) << fill.output;
  const CommandResult r = run_command(train_command(dir.path("config.json"), out, true));
  expect_stopped_cleanly(r, out, "No space left on device");
  fs::remove(mount_point + "/filler");
  expect_resume_finishes(dir.path("config.json"), out);
}

}  // namespace
}  // namespace nmt::test
