// `trainer --nproc-per-node N`: torchrun's job for users without it. Starts
// N ranks of this executable on this machine with torchrun's environment,
// forwards SIGINT/SIGTERM to them (each saves and stops at the same step),
// and when one rank fails stops the others and exits with its status.
#pragma once

#include <string>
#include <vector>

namespace nmt::distributed {

struct LaunchOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr;          // empty: 127.0.0.1 for one machine; required for more
  int master_port = 0;              // 0: a free port for one machine, 29500 for more
  std::string network_interface;    // becomes GLOO_SOCKET_IFNAME of the ranks
  int grace_seconds = 60;           // after one rank failed, how long the others may take to stop

  // UsageError naming the flag when the numbers do not fit together.
  void validate() const;
};

// Runs the job's ranks on this machine: each is this executable with `args`
// (the command line without the launcher's own flags). Returns the exit code
// for the launcher: 0 when every rank succeeded, else the first failure's.
int launch_local_ranks(const LaunchOptions& options, const std::vector<std::string>& args);

// `argv` without the launcher's flags (--nproc-per-node N, --nnodes N, ...,
// as "--flag value" or "--flag=value"), for the ranks' command lines.
std::vector<std::string> without_launcher_flags(int argc, char** argv);

}  // namespace nmt::distributed
