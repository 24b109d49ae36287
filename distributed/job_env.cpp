#include "distributed/job_env.h"

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "util/error.h"

namespace nmt::distributed {
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

int env_int(const char* name, int fallback) {
  const char* value = env(name);
  if (!value) return fallback;
  char* end = nullptr;
  errno = 0;
  const long parsed = std::strtol(value, &end, 10);
  if (errno != 0 || *end != '\0' || parsed < 0 || parsed > 1'000'000) {
    throw UsageError(fmt::format("The environment variable {}={} is not a whole number from 0 to 1000000.", name,
                                 value));
  }
  return static_cast<int>(parsed);
}

}  // namespace

void JobEnv::validate() const {
  if (world_size < 1) throw UsageError(fmt::format("WORLD_SIZE must be at least 1, not {}.", world_size));
  if (rank >= world_size) {
    throw UsageError(fmt::format("RANK {} is not below WORLD_SIZE {}: ranks count from 0.", rank, world_size));
  }
  if (local_world_size < 1 || local_world_size > world_size) {
    throw UsageError(fmt::format("LOCAL_WORLD_SIZE {} must lie between 1 and WORLD_SIZE {}.", local_world_size,
                                 world_size));
  }
  if (local_rank >= local_world_size) {
    throw UsageError(fmt::format("LOCAL_RANK {} is not below LOCAL_WORLD_SIZE {}.", local_rank, local_world_size));
  }
  if (master_port < 1 || master_port > 65535) {
    throw UsageError(fmt::format("MASTER_PORT {} is not a TCP port (1-65535).", master_port));
  }
  if (master_addr.empty()) throw UsageError("MASTER_ADDR is empty: name the host of rank 0.");
}

std::string JobEnv::describe() const {
  return fmt::format("rank {} of {} (local {} of {}), master {}:{}{}", rank, world_size, local_rank,
                     local_world_size, master_addr, master_port, agent_store ? " (torchrun's store)" : "");
}

std::optional<JobEnv> job_env_from_environment() {
  const bool has_rank = env("RANK") != nullptr, has_world = env("WORLD_SIZE") != nullptr;
  if (!has_rank && !has_world) return std::nullopt;
  if (!has_rank || !has_world) {
    throw UsageError(std::string("The environment sets ") + (has_rank ? "RANK" : "WORLD_SIZE") + " but not " +
                     (has_rank ? "WORLD_SIZE" : "RANK") +
                     ": a data-parallel rank needs both (torchrun sets them; so does trainer --nproc-per-node).");
  }
  JobEnv job;
  job.rank = env_int("RANK", 0);
  job.world_size = env_int("WORLD_SIZE", 1);
  // Without LOCAL_* every rank is taken for the only one on its machine.
  job.local_rank = env_int("LOCAL_RANK", 0);
  job.local_world_size = env_int("LOCAL_WORLD_SIZE", 1);
  if (job.world_size > 1 && !env("MASTER_ADDR")) {
    throw UsageError("MASTER_ADDR is not set: every rank of a job needs the address of rank 0's host.");
  }
  if (const char* addr = env("MASTER_ADDR")) job.master_addr = addr;
  job.master_port = env_int("MASTER_PORT", kDefaultMasterPort);
  const char* agent = env("TORCHELASTIC_USE_AGENT_STORE");
  job.agent_store = agent && (std::string(agent) == "True" || std::string(agent) == "1");
  job.restart_count = env_int("TORCHELASTIC_RESTART_COUNT", 0);
  if (const char* run_id = env("TORCHELASTIC_RUN_ID")) job.run_id = run_id;
  if (const char* ifname = env("GLOO_SOCKET_IFNAME")) job.network_interface = ifname;
  job.rendezvous_timeout_s = env_int("NMT_RENDEZVOUS_TIMEOUT", job.rendezvous_timeout_s);
  job.liveness_timeout_s = env_int("NMT_LIVENESS_TIMEOUT", job.liveness_timeout_s);
  job.validate();
  return job;
}

}  // namespace nmt::distributed
