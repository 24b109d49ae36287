// Where this process stands in a data-parallel job: its rank, the job's size,
// and how to reach rank 0, in torchrun's environment contract (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and
// TORCHELASTIC_USE_AGENT_STORE when torchrun's agent already hosts the store).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nmt::distributed {

constexpr int kDefaultMasterPort = 29500;

struct JobEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = kDefaultMasterPort;
  // torchrun's agent hosts the store at MASTER_ADDR:MASTER_PORT; rank 0 then
  // joins it as a client instead of serving it.
  bool agent_store = false;
  int restart_count = 0;          // TORCHELASTIC_RESTART_COUNT: keys of a restarted attempt stay apart
  std::string run_id;             // TORCHELASTIC_RUN_ID (torchrun's --rdzv_id; "none" unless given)
  std::string network_interface;  // GLOO_SOCKET_IFNAME or --network-interface; empty: the route to the master
  int rendezvous_timeout_s = 300;  // how long ranks wait for each other to appear
  int liveness_timeout_s = 30;     // a rank silent this long is taken for dead

  bool distributed() const { return world_size > 1; }
  // Throws UsageError naming the variable when the numbers do not fit together.
  void validate() const;
  std::string describe() const;  // "rank 1 of 2 (local 1 of 2), master 127.0.0.1:29500"
};

// The job described by the environment, or nullopt when RANK and WORLD_SIZE
// are both absent (a plain single process). UsageError when only some of the
// variables are set or one is not a number.
std::optional<JobEnv> job_env_from_environment();

}  // namespace nmt::distributed
