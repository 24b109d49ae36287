// Two "hosts": network namespaces joined by a veth pair, one rank in each,
// each with its own output directory (no shared file system). The job must
// reach the weights of the loopback run (one process with 2-fold
// accumulation, which the loopback tests show a 2-rank job equals).
// Needs root (CAP_NET_ADMIN) and iproute2; skipped otherwise.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "storage/checkpoint.h"
#include "tests/distributed_test_util.h"

namespace nmt::test {
namespace {

namespace fs = std::filesystem;

// Two namespaces and the veth pair between them, removed again on scope exit.
class VethPair {
 public:
  explicit VethPair(const std::string& tag)
      : ns_{"nmt_a" + tag, "nmt_b" + tag}, link_{"nmta" + tag, "nmtb" + tag} {
    ok_ = sh("ip netns add " + ns_[0]) && sh("ip netns add " + ns_[1]) &&
          sh("ip link add " + link_[0] + " type veth peer name " + link_[1]);
    for (int i = 0; ok_ && i < 2; ++i) {
      ok_ = sh("ip link set " + link_[i] + " netns " + ns_[i]) &&
            sh(in(i) + "ip address add " + address(i) + "/24 dev " + link_[i]) &&
            sh(in(i) + "ip link set " + link_[i] + " up") && sh(in(i) + "ip link set lo up");
    }
  }
  ~VethPair() {
    for (const auto& ns : ns_) sh("ip netns del " + ns + " 2>/dev/null");
  }
  bool ok() const { return ok_; }
  std::string in(int i) const { return "ip netns exec " + ns_[i] + " "; }
  const std::string& ns(int i) const { return ns_[i]; }
  const std::string& link(int i) const { return link_[i]; }
  static std::string address(int i) { return i == 0 ? "10.213.77.1" : "10.213.77.2"; }

 private:
  static bool sh(const std::string& command) { return run_command(command).code == 0; }
  std::string ns_[2], link_[2];
  bool ok_ = false;
};

TEST(TwoHosts, RanksInTwoNetworkNamespacesReachTheLoopbackWeights) {
  if (::geteuid() != 0) GTEST_SKIP() << "network namespaces need root";
  if (run_command("command -v ip").code != 0) GTEST_SKIP() << "iproute2 is not installed";
  VethPair hosts(std::to_string(::getpid() % 100000));
  if (!hosts.ok()) GTEST_SKIP() << "cannot create network namespaces and a veth pair here";

  TempDir dir;
  auto config = tiny_training_config(dir.root());
  config["model"]["drop_prob"] = 0.1;
  config["train"]["precision"] = "fp32";
  config["train"]["max_steps"] = 16;
  config["train"]["threads"] = 1;  // one rank per host, one thread each
  config["checkpoint"]["every_steps"] = 4;
  write_json(dir.path("job.json"), config);
  config["train"]["accum_steps"] = 2;
  write_json(dir.path("single.json"), config);
  ASSERT_EQ(run_command(trainer_binary() + " --config " + dir.path("single.json") + " --out " + dir.path("single"))
                .code,
            0);

  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    std::vector<std::string> args = {"ip", "netns", "exec", hosts.ns(r)};
    const std::string out = dir.path("host" + std::to_string(r));
    for (const auto& a : trainer_args(dir.path("job.json"), out)) args.push_back(a);
    // Rank 0 finds its address from the route to the master; rank 1 is told its interface.
    if (r == 1) args.insert(args.end(), {"--network-interface", hosts.link(1)});
    std::map<std::string, std::string> env = {{"RANK", std::to_string(r)},      {"WORLD_SIZE", "2"},
                                              {"LOCAL_RANK", "0"},               {"LOCAL_WORLD_SIZE", "1"},
                                              {"MASTER_ADDR", VethPair::address(0)}, {"MASTER_PORT", "29517"}};
    pids[r] = spawn_process(args, env, dir.path("host" + std::to_string(r) + ".log"));
  }
  for (int r = 0; r < 2; ++r) {
    const Exit e = wait_with_deadline(pids[r], std::chrono::seconds(300));
    EXPECT_EQ(e.code(), 0) << read_text(dir.path("host" + std::to_string(r) + ".log"));
  }
  // Rank 0's host holds the checkpoints; rank 1's only its vocabulary and data cache.
  EXPECT_FALSE(fs::exists(dir.path("host1") + "/checkpoints/last.pt"));
  const auto single = storage::load_checkpoint(dir.path("single") + "/checkpoints/last.pt");
  const auto job = storage::load_checkpoint(dir.path("host0") + "/checkpoints/last.pt");
  EXPECT_EQ(job.step(), 16);
  for (const auto& [name, t] : single.weights) EXPECT_TRUE(torch::equal(t, job.weights.at(name))) << name;
  EXPECT_NE(read_text(dir.path("host0.log")).find("master 10.213.77.1:29517"), std::string::npos);
}

}  // namespace
}  // namespace nmt::test
