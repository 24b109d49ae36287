#include "distributed/communicator.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#include <torch/version.h>
#include <fmt/format.h>
#include <glog/logging.h>

#include <cstring>
#include <mutex>

#include "distributed/liveness.h"
#include "distributed/network.h"
#include "util/error.h"

namespace nmt::distributed {
namespace {

// LibTorch 2.x made the process groups' backends a class of their own.
#if TORCH_VERSION_MAJOR >= 2
using BackendBase = c10d::Backend;
#else
using BackendBase = c10d::ProcessGroup;
#endif

// Collectives wait this long for a peer that is alive but slow (rank 0
// validating while the others wait for the next step); a dead one is noticed
// by the heartbeats long before.
constexpr auto kCollectiveTimeout = std::chrono::hours(2);

// c10d's sockets log every failed bind and connect attempt through glog
// (LibTorch's logger) before they give up; what a user needs is the one
// message we make of the failure.
// Counted, for ranks that join from threads of one process (tests, benchmarks).
class QuietTorchLogs {
 public:
  QuietTorchLogs() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (users_++ == 0) {
      saved_ = FLAGS_minloglevel;
      FLAGS_minloglevel = google::GLOG_FATAL;
    }
  }
  ~QuietTorchLogs() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--users_ == 0) FLAGS_minloglevel = saved_;
  }

 private:
  static inline std::mutex mutex_;
  static inline int users_ = 0;
  static inline int saved_ = 0;
};

// The first line of a LibTorch message (a backtrace may follow), without its
// closing period, to go inside a sentence of ours.
std::string first_line(const std::string& message) {
  std::string line = message.substr(0, message.find('\n'));
  while (!line.empty() && (line.back() == '.' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string store_name(const JobEnv& job) { return fmt::format("{}:{}", job.master_addr, job.master_port); }

c10::intrusive_ptr<c10d::Store> connect_store(const JobEnv& job, bool serve, bool wait_for_workers,
                                              std::chrono::seconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(job.master_port);
  options.isServer = serve;
  options.numWorkers = wait_for_workers ? c10::optional<size_t>(job.world_size) : c10::nullopt;
  options.waitWorkers = wait_for_workers;
  options.timeout = timeout;
  c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::TCPStore>(job.master_addr, options);
  // A restarted attempt of torchrun's must not meet the keys of the last one.
  return c10::make_intrusive<c10d::PrefixStore>(fmt::format("nmt/attempt_{}", job.restart_count), store);
}

// The rank-0 store server failing to start, or a client failing to reach it,
// in words a user can act on.
[[noreturn]] void rendezvous_failed(const JobEnv& job, const std::exception& e) {
  const std::string what = e.what();
  const std::string reason = first_line(what);
  const bool serving = job.rank == 0 && !job.agent_store;
  const bool in_use =
      what.find("ddress already in use") != std::string::npos || what.find("EADDRINUSE") != std::string::npos;
  if (serving && in_use) {
    throw Error(fmt::format("Cannot start the job's rendezvous on port {}: the port is in use (another job?). "
                            "Choose a free one with --master-port or MASTER_PORT.",
                            job.master_port),
                kExitOther);
  }
  throw Error(fmt::format("Rank {} could not join the job at {} within {} s ({}). Check that MASTER_ADDR and "
                          "MASTER_PORT (--master-addr, --master-port) name rank 0's host and a port it can "
                          "open, that a firewall lets it through, and that all {} ranks were started.",
                          job.rank, store_name(job), job.rendezvous_timeout_s, reason, job.world_size),
              kExitOther);
}

std::shared_ptr<::gloo::transport::Device> gloo_device(const JobEnv& job) {
  if (!job.network_interface.empty()) {
    interface_address(job.network_interface);  // a clear UsageError when it is missing
    return c10d::ProcessGroupGloo::createDeviceForInterface(job.network_interface);
  }
  std::string address = local_address_towards(job.master_addr, job.master_port);
  const bool loopback = address.rfind("127.", 0) == 0 || address == "::1";
  const bool master_is_loopback =
      job.master_addr == "localhost" || job.master_addr.rfind("127.", 0) == 0 || job.master_addr == "::1";
  if (loopback && !master_is_loopback && job.world_size > job.local_world_size) {
    // The master's name points back at this machine through a loopback
    // address (Debian maps its own hostname to 127.0.1.1), but ranks on other
    // machines must reach this one: listen where the default route leaves.
    try {
      address = local_address_towards("192.0.2.1", 9);  // TEST-NET-1: only the route is looked up
    } catch (const Error&) {
      throw UsageError("MASTER_ADDR " + job.master_addr + " leads to a loopback address on this machine, and no "
                       "other route was found: name the network interface that joins the machines with "
                       "--network-interface or GLOO_SOCKET_IFNAME.");
    }
  }
  return c10d::ProcessGroupGloo::createDeviceForHostname(address);
}

}  // namespace

struct Communicator::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;  // CPU tensors
#ifdef USE_C10D_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;  // CUDA tensors, when the model trains on CUDA
#endif
  std::unique_ptr<Liveness> liveness;

  BackendBase& group_for(const torch::Tensor& t) {
#ifdef USE_C10D_NCCL
    if (t.is_cuda()) {
      TORCH_CHECK(nccl, "a CUDA tensor reached a job that joined without NCCL");
      return *nccl;
    }
#endif
    TORCH_CHECK(t.is_cpu(), "this LibTorch has no NCCL: collectives take CPU tensors");
    return *gloo;
  }
};

Communicator::Communicator(const JobEnv& job, torch::Device device) : job_(job), impl_(std::make_unique<Impl>()) {
  job_.validate();
  QuietTorchLogs quiet;
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(kCollectiveTimeout);
    options->devices.push_back(gloo_device(job_));  // a missing interface is an error before anyone waits
    const bool serve = job_.rank == 0 && !job_.agent_store;
    const auto rendezvous = std::chrono::seconds(job_.rendezvous_timeout_s);
    impl_->store = connect_store(job_, serve, /*wait_for_workers=*/!job_.agent_store, rendezvous);
    // Heartbeats start before Gloo's set-up, which waits on the store for as
    // long as its collective timeout; they get a client of their own (a store
    // client serves one thread) that gives up on a silent store in time.
    impl_->liveness = std::make_unique<Liveness>(
        connect_store(job_, false, false, std::chrono::seconds(job_.liveness_timeout_s)), job_.rank,
        job_.world_size, std::chrono::seconds(job_.liveness_timeout_s), rendezvous, store_name(job_));
    impl_->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(
        c10::make_intrusive<c10d::PrefixStore>("gloo", impl_->store), job_.rank, job_.world_size, options);
#ifdef USE_C10D_NCCL
    if (device.is_cuda()) {
      impl_->nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(
          c10::make_intrusive<c10d::PrefixStore>("nccl", impl_->store), job_.rank, job_.world_size);
    }
#endif
  } catch (const Error& e) {
    if (impl_->liveness) impl_->liveness->finish(e.what());
    throw;
  } catch (const std::exception& e) {
    if (impl_->liveness) impl_->liveness->finish(e.what());
    rendezvous_failed(job_, e);
  }
}

Communicator::~Communicator() = default;

void Communicator::fail(const char* what, const std::exception& e) {
  std::string suspects = impl_->liveness ? impl_->liveness->suspects() : std::string();
  const std::string detail = first_line(suspects.empty() ? std::string(e.what()) : suspects);
  throw Error(fmt::format("Rank {} lost the job during {}: {}. Stopping; resume the job with --resume once every "
                          "rank can run.",
                          job_.rank, what, detail),
              kExitOther);
}

void Communicator::allreduce_sum(std::vector<torch::Tensor>& tensors, const char* what) {
  try {
    std::vector<std::vector<torch::Tensor>> lists;
    lists.reserve(tensors.size());
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    for (auto& t : tensors) {
      lists.push_back({t});
      works.push_back(impl_->group_for(t).allreduce(lists.back(), c10d::AllreduceOptions()));
    }
    for (auto& w : works) w->wait();
  } catch (const std::exception& e) {
    fail(what, e);
  }
}

void Communicator::broadcast(torch::Tensor& tensor, const char* what) {
  try {
    std::vector<torch::Tensor> list{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = 0;
    impl_->group_for(tensor).broadcast(list, options)->wait();
  } catch (const std::exception& e) {
    fail(what, e);
  }
}

std::string Communicator::broadcast_bytes(const std::string& bytes, const char* what) {
  auto length = torch::tensor({static_cast<int64_t>(bytes.size())}, torch::kInt64);
  broadcast(length, what);
  auto buffer = torch::empty({length.item<int64_t>()}, torch::kUInt8);
  if (rank() == 0 && !bytes.empty()) std::memcpy(buffer.data_ptr(), bytes.data(), bytes.size());
  if (buffer.numel() > 0) broadcast(buffer, what);
  return std::string(static_cast<const char*>(buffer.data_ptr()), static_cast<size_t>(buffer.numel()));
}

bool Communicator::any(bool flag, const char* what) {
  std::vector<torch::Tensor> t{torch::tensor({flag ? 1 : 0}, torch::kInt32)};
  allreduce_sum(t, what);
  return t[0].item<int32_t>() > 0;
}

void Communicator::barrier(const char* what) {
  try {
    impl_->gloo->barrier(c10d::BarrierOptions())->wait();
  } catch (const std::exception& e) {
    fail(what, e);
  }
}

void Communicator::leave() {
  impl_->liveness->leaving();
  barrier("leaving the job");
  impl_->liveness->finish();
}

void Communicator::leave_after_error(const std::string& error_message) {
  impl_->liveness->finish(error_message.empty() ? std::string("an error without a message") : error_message);
}

}  // namespace nmt::distributed
