// One rank's membership of a data-parallel job on c10d: the job's TCPStore
// (served by rank 0, or by torchrun's agent), a Gloo process group for the
// CPU's collectives (NCCL where LibTorch has it and the model is on CUDA), and
// the heartbeats that turn a dead peer into a message naming it.
//
// Collectives must be issued in the same order on every rank; every failure
// becomes an nmt::Error that says which rank looks gone.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "distributed/job_env.h"

namespace nmt::distributed {

class Liveness;

class Communicator {
 public:
  // Joins the job; returns once every rank has. Errors name the master's
  // address and what to check (port in use, master unreachable, timeout).
  // Collectives on CUDA tensors go through NCCL when `device` is CUDA and
  // LibTorch was built with it; CPU tensors always through Gloo.
  Communicator(const JobEnv& job, torch::Device device);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return job_.rank; }
  int size() const { return job_.world_size; }
  const JobEnv& job() const { return job_; }

  // Sums each tensor over the ranks, in place. The tensors' collectives are
  // issued together and then waited for, so that they overlap.
  void allreduce_sum(std::vector<torch::Tensor>& tensors, const char* what);
  // Rank 0's tensor, in place on every rank (same shape and dtype everywhere).
  void broadcast(torch::Tensor& tensor, const char* what);
  // Rank 0's bytes on every rank (the others pass anything).
  std::string broadcast_bytes(const std::string& bytes, const char* what);
  // True on every rank when any rank passed true.
  bool any(bool flag, const char* what);
  void barrier(const char* what);

  // Ends this rank's part with the others: a last barrier (rank 0's last
  // checkpoint is written by then), then the others learn it finished, so
  // that its silence is not taken for a crash.
  void leave();
  // Ends this rank's part alone, after an error the others learn (they stop
  // with it in their message).
  void leave_after_error(const std::string& error_message);

 private:
  struct Impl;
  [[noreturn]] void fail(const char* what, const std::exception& e);
  JobEnv job_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nmt::distributed
