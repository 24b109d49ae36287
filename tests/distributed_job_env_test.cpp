// torchrun's environment contract and the launcher's command line.
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "distributed/job_env.h"
#include "distributed/launcher.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::distributed {
namespace {

// Sets the variables for one test and restores the previous environment after.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& values) {
    for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                             "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_RESTART_COUNT", "GLOO_SOCKET_IFNAME"}) {
      if (const char* old = std::getenv(name)) saved_[name] = old;
      ::unsetenv(name);
    }
    for (const auto& [k, v] : values) ::setenv(k.c_str(), v.c_str(), 1);
  }
  ~ScopedEnv() {
    for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                             "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_RESTART_COUNT", "GLOO_SOCKET_IFNAME"}) {
      ::unsetenv(name);
    }
    for (const auto& [k, v] : saved_) ::setenv(k.c_str(), v.c_str(), 1);
  }

 private:
  std::map<std::string, std::string> saved_;
};

TEST(DistJobEnv, NoRankAndWorldSizeIsAPlainProcess) {
  ScopedEnv env({});
  EXPECT_FALSE(job_env_from_environment().has_value());
}

TEST(DistJobEnv, ReadsWhatTorchrunSets) {
  ScopedEnv env({{"RANK", "3"},
                 {"WORLD_SIZE", "4"},
                 {"LOCAL_RANK", "1"},
                 {"LOCAL_WORLD_SIZE", "2"},
                 {"MASTER_ADDR", "10.0.0.5"},
                 {"MASTER_PORT", "29501"},
                 {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                 {"TORCHELASTIC_RESTART_COUNT", "2"},
                 {"GLOO_SOCKET_IFNAME", "eth1"}});
  const auto job = job_env_from_environment();
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->rank, 3);
  EXPECT_EQ(job->world_size, 4);
  EXPECT_EQ(job->local_rank, 1);
  EXPECT_EQ(job->local_world_size, 2);
  EXPECT_EQ(job->master_addr, "10.0.0.5");
  EXPECT_EQ(job->master_port, 29501);
  EXPECT_TRUE(job->agent_store);
  EXPECT_EQ(job->restart_count, 2);
  EXPECT_EQ(job->network_interface, "eth1");
  EXPECT_TRUE(job->distributed());
  EXPECT_EQ(job->describe(), "rank 3 of 4 (local 1 of 2), master 10.0.0.5:29501 (torchrun's store)");
}

TEST(DistJobEnv, InconsistentEnvironmentsAreUsageErrorsNamingTheVariable) {
  struct Case {
    std::map<std::string, std::string> values;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{{"RANK", "0"}}, "but not WORLD_SIZE"},
      {{{"WORLD_SIZE", "2"}}, "but not RANK"},
      {{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "RANK 2 is not below WORLD_SIZE 2"},
      {{{"RANK", "x"}, {"WORLD_SIZE", "2"}}, "RANK=x is not a whole number"},
      {{{"RANK", "1"}, {"WORLD_SIZE", "2"}}, "MASTER_ADDR is not set"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}},
       "MASTER_PORT 70000 is not a TCP port"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"LOCAL_WORLD_SIZE", "3"}}, "LOCAL_WORLD_SIZE 3"},
  };
  for (const Case& c : cases) {
    ScopedEnv env(c.values);
    EXPECT_TRUE(test::throws_with<UsageError>([] { job_env_from_environment(); }, {c.needle})) << c.needle;
  }
}

TEST(DistLauncher, RanksGetTheCommandLineWithoutTheLaunchersFlags) {
  const char* argv[] = {"trainer",       "--config",        "c.json",   "--nproc-per-node", "2", "--nnodes=2",
                        "--node-rank",   "1",               "--master-addr", "10.0.0.1", "--master-port=29400",
                        "--set",         "train.epochs=3",  "--network-interface", "eth1"};
  const auto args = without_launcher_flags(static_cast<int>(std::size(argv)), const_cast<char**>(argv));
  const std::vector<std::string> expected = {"trainer", "--config", "c.json", "--set", "train.epochs=3",
                                             "--network-interface", "eth1"};
  EXPECT_EQ(args, expected);
}

TEST(DistLauncher, OptionsAreCheckedBeforeAnyRankStarts) {
  LaunchOptions o;
  o.nproc_per_node = 0;
  EXPECT_THROW(o.validate(), UsageError);
  o.nproc_per_node = 2;
  o.nnodes = 2;
  EXPECT_THROW(o.validate(), UsageError);  // two machines need --master-addr
  o.master_addr = "10.0.0.1";
  EXPECT_NO_THROW(o.validate());
  o.node_rank = 2;
  EXPECT_THROW(o.validate(), UsageError);
}

}  // namespace
}  // namespace nmt::distributed
