// Gradient sums over two ranks that live in threads of this process (a real
// TCPStore and Gloo on loopback), checked against sums computed here.
#include <functional>
#include <thread>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "distributed/communicator.h"
#include "distributed/gradient_sync.h"
#include "distributed/network.h"

namespace nmt::distributed {
namespace {

// Runs body(communicator) as ranks 0 and 1 of a loopback job, one thread each.
void run_two_ranks(const std::function<void(Communicator&)>& body) {
  const int port = free_local_port();
  auto rank = [&](int r) {
    JobEnv job;
    job.rank = r;
    job.world_size = 2;
    job.local_rank = r;
    job.local_world_size = 2;
    job.master_port = port;
    Communicator comm(job, torch::kCPU);
    body(comm);
    comm.leave();
  };
  // An exception escaping a thread would terminate the test binary: carry it over.
  std::exception_ptr failure;
  std::thread other([&] {
    try {
      rank(1);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  rank(0);
  other.join();
  if (failure) std::rethrow_exception(failure);
}

// Rank r's gradient of parameter i: distinct, non-round values.
torch::Tensor grad_of(int r, int64_t i, at::IntArrayRef shape) {
  auto g = torch::arange(c10::multiply_integers(shape), torch::kFloat).reshape(shape);
  return g * (0.37f + static_cast<float>(i)) + static_cast<float>(r) * 1.5f - 0.25f;
}

TEST(DistGradientSync, SumsEveryParameterAcrossBucketsAndTheStatisticsWithThem) {
  const std::vector<std::vector<int64_t>> shapes = {{7, 5}, {300}, {3, 4, 6}, {1}};
  run_two_ranks([&](Communicator& comm) {
    std::vector<torch::Tensor> params;
    for (const auto& s : shapes) params.push_back(torch::zeros(s, torch::requires_grad()));
    for (size_t i = 0; i < params.size(); ++i) {
      params[i].mutable_grad() = grad_of(comm.rank(), static_cast<int64_t>(i), shapes[i]);
    }
    GradientSync sync(params, /*bucket_bytes=*/512);  // several buckets, one parameter larger than a bucket
    EXPECT_GE(sync.buckets(), 3);
    std::vector<double> extras = {1.25 + comm.rank(), -3.0};
    sync.allreduce(comm, extras);
    EXPECT_DOUBLE_EQ(extras[0], 3.5);
    EXPECT_DOUBLE_EQ(extras[1], -6.0);
    for (size_t i = 0; i < params.size(); ++i) {
      const auto n = static_cast<int64_t>(i);
      const auto expected = grad_of(0, n, shapes[i]) + grad_of(1, n, shapes[i]);
      EXPECT_TRUE(torch::equal(params[i].grad(), expected)) << "parameter " << i << " on rank " << comm.rank();
    }
  });
}

TEST(DistGradientSync, ARankWithoutABatchTakesPartWithZeros) {
  run_two_ranks([&](Communicator& comm) {
    auto used = torch::zeros({4}, torch::requires_grad());
    auto unused = torch::zeros({2}, torch::requires_grad());  // no rank has a gradient for it
    if (comm.rank() == 0) used.mutable_grad() = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f});
    GradientSync sync({used, unused});
    std::vector<double> extras = {comm.rank() == 0 ? 10.0 : 0.0};
    sync.allreduce(comm, extras);
    ASSERT_TRUE(used.grad().defined()) << "rank " << comm.rank();
    EXPECT_TRUE(torch::equal(used.grad(), torch::tensor({1.0f, 2.0f, 3.0f, 4.0f})));
    EXPECT_FALSE(unused.grad().defined()) << "a gradient no rank had must stay undefined (Adam skips it)";
    EXPECT_DOUBLE_EQ(extras[0], 10.0);
  });
}

TEST(DistCommunicator, BroadcastsRank0sBytesAndAgreesWhenAnyRankWantsTo) {
  run_two_ranks([&](Communicator& comm) {
    const std::string payload(100000, 'x');
    EXPECT_EQ(comm.broadcast_bytes(comm.rank() == 0 ? payload : "ignored", "a test"), payload);
    EXPECT_EQ(comm.broadcast_bytes(comm.rank() == 0 ? "" : "ignored", "a test"), "");
    EXPECT_FALSE(comm.any(false, "a test"));
    EXPECT_TRUE(comm.any(comm.rank() == 1, "a test"));
  });
}

}  // namespace
}  // namespace nmt::distributed
