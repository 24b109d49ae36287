#include "distributed/launcher.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "distributed/network.h"
#include "util/error.h"

namespace nmt::distributed {
namespace {

const char* const kLauncherFlags[] = {"--nproc-per-node", "--nnodes", "--node-rank", "--master-addr",
                                      "--master-port"};

struct Rank {
  int rank;
  pid_t pid;
  bool running = true;
};

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  const int sig = WTERMSIG(status);
  return fmt::format("was killed by signal {} ({})", sig, ::strsignal(sig));
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

// A rank's command line and environment, made before fork: between fork and
// exec the child only makes system calls.
struct RankCommand {
  std::vector<std::string> strings;  // argv then envp, owning the text
  std::vector<char*> argv, envp;
};

RankCommand rank_command(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  RankCommand c;
  c.strings = args;
  for (char** e = ::environ; *e; ++e) {
    const std::string entry = *e;
    if (!env.count(entry.substr(0, entry.find('=')))) c.strings.push_back(entry);
  }
  for (const auto& [key, value] : env) c.strings.push_back(key + "=" + value);
  for (size_t i = 0; i < c.strings.size(); ++i) {
    (i < args.size() ? c.argv : c.envp).push_back(const_cast<char*>(c.strings[i].c_str()));
  }
  c.argv.push_back(nullptr);
  c.envp.push_back(nullptr);
  return c;
}

// In the child: become the rank by replacing this process with the trainer.
[[noreturn]] void exec_rank(const RankCommand& command, pid_t launcher, const sigset_t& old_mask) {
  // A process group of its own: a terminal's Ctrl-C reaches the launcher
  // alone, which passes one signal on (a second one would force a rank to
  // quit without saving).
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the launcher gone: stop as after a signal
  if (::getppid() != launcher) ::_exit(kExitOther);  // it went before the line above took effect
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::execve("/proc/self/exe", command.argv.data(), command.envp.data());
  static const char message[] = "trainer: error: cannot start a rank of the job (exec failed).\n";
  ssize_t ignored = ::write(2, message, sizeof(message) - 1);
  (void)ignored;
  ::_exit(kExitOther);
}

void signal_running(const std::vector<Rank>& ranks, int sig) {
  for (const auto& r : ranks) {
    if (r.running) ::kill(r.pid, sig);
  }
}

// Waits for the ranks. The first one to fail makes the others stop (SIGTERM,
// then SIGKILL after `grace_seconds`); signals to the launcher pass on.
int supervise(std::vector<Rank>& ranks, int grace_seconds, const sigset_t& handled) {
  using Clock = std::chrono::steady_clock;
  int result = 0;
  bool failed = false;
  auto kill_at = Clock::time_point::max();
  size_t running = ranks.size();
  while (running > 0) {
    const timespec tick{0, 200'000'000};
    siginfo_t info;
    const int sig = ::sigtimedwait(&handled, &info, &tick);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      std::cerr << fmt::format("trainer: {}: passing it on to the ranks, which save a checkpoint and stop\n",
                               ::strsignal(sig));
      signal_running(ranks, sig == SIGHUP ? SIGTERM : sig);
    }
    int status = 0;
    for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) {
      for (auto& r : ranks) {
        if (r.pid != pid || !r.running) continue;
        r.running = false;
        --running;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        if (failed) continue;
        failed = true;
        result = exit_code_of(status);
        std::cerr << fmt::format("trainer: error: rank {} (pid {}) {}; stopping the other ranks.\n", r.rank, pid,
                                 describe_status(status));
        signal_running(ranks, SIGTERM);
        kill_at = Clock::now() + std::chrono::seconds(grace_seconds);
      }
    }
    if (running > 0 && Clock::now() >= kill_at) {
      std::cerr << fmt::format("trainer: the other ranks did not stop within {} s; killing them.\n", grace_seconds);
      signal_running(ranks, SIGKILL);
      kill_at = Clock::time_point::max();
    }
  }
  return result;
}

}  // namespace

void LaunchOptions::validate() const {
  if (nproc_per_node < 1 || nproc_per_node > 1024) {
    throw UsageError(fmt::format("--nproc-per-node {} must lie between 1 and 1024.", nproc_per_node));
  }
  if (nnodes < 1) throw UsageError(fmt::format("--nnodes {} must be at least 1.", nnodes));
  if (node_rank < 0 || node_rank >= nnodes) {
    throw UsageError(fmt::format("--node-rank {} must lie between 0 and --nnodes - 1 ({}).", node_rank, nnodes - 1));
  }
  if (nnodes > 1 && master_addr.empty()) {
    throw UsageError("--nnodes " + std::to_string(nnodes) +
                     " needs --master-addr: the address of the machine of --node-rank 0, the same on every machine.");
  }
  if (master_port < 0 || master_port > 65535) {
    throw UsageError(fmt::format("--master-port {} is not a TCP port (1-65535).", master_port));
  }
}

std::vector<std::string> without_launcher_flags(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    bool launcher_flag = false;
    for (const char* flag : kLauncherFlags) {
      if (arg == flag) {
        launcher_flag = true;
        ++i;  // and its value
      } else if (arg.rfind(std::string(flag) + "=", 0) == 0) {
        launcher_flag = true;
      }
    }
    if (!launcher_flag) out.push_back(arg);
  }
  return out;
}

int launch_local_ranks(const LaunchOptions& o, const std::vector<std::string>& args) {
  o.validate();
  if (std::getenv("RANK")) {
    throw UsageError("--nproc-per-node starts ranks itself; this process is a rank already (RANK is set). Use one "
                     "of torchrun and --nproc-per-node, not both.");
  }
  const std::string master = o.master_addr.empty() ? "127.0.0.1" : o.master_addr;
  const int port = o.master_port > 0 ? o.master_port : o.nnodes == 1 ? free_local_port() : 29500;
  const int world = o.nproc_per_node * o.nnodes;
  std::cerr << fmt::format("trainer: starting ranks {}-{} of {} on this machine; master {}:{}\n",
                           o.node_rank * o.nproc_per_node, (o.node_rank + 1) * o.nproc_per_node - 1, world, master,
                           port);
  sigset_t handled, old_mask;
  sigemptyset(&handled);
  for (int sig : {SIGINT, SIGTERM, SIGCHLD, SIGHUP}) sigaddset(&handled, sig);
  ::sigprocmask(SIG_BLOCK, &handled, &old_mask);

  std::vector<Rank> ranks;
  const pid_t launcher = ::getpid();
  for (int local = 0; local < o.nproc_per_node; ++local) {
    const int rank = o.node_rank * o.nproc_per_node + local;
    std::map<std::string, std::string> env = {
        {"RANK", std::to_string(rank)},           {"WORLD_SIZE", std::to_string(world)},
        {"LOCAL_RANK", std::to_string(local)},    {"LOCAL_WORLD_SIZE", std::to_string(o.nproc_per_node)},
        {"GROUP_RANK", std::to_string(o.node_rank)}, {"MASTER_ADDR", master},
        {"MASTER_PORT", std::to_string(port)}};
    if (!o.network_interface.empty()) env["GLOO_SOCKET_IFNAME"] = o.network_interface;
    const RankCommand command = rank_command(args, env);
    const pid_t pid = ::fork();
    if (pid == 0) exec_rank(command, launcher, old_mask);
    if (pid < 0) {
      const std::string why = std::strerror(errno);
      signal_running(ranks, SIGKILL);
      for (const auto& r : ranks) ::waitpid(r.pid, nullptr, 0);
      ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
      throw Error("Cannot start rank " + std::to_string(rank) + ": " + why + "; the ranks started are stopped.",
                  kExitOther);
    }
    ::setpgid(pid, pid);  // also here: a Ctrl-C right after fork must not reach the child
    ranks.push_back({rank, pid});
  }
  const int code = supervise(ranks, o.grace_seconds, handled);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  return code;
}

}  // namespace nmt::distributed
