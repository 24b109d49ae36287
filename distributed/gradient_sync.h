// The C++ stand-in for DistributedDataParallel's reducer (which Debian's
// LibTorch does not ship): after each rank's backward, the parameters'
// gradients are summed over the ranks in fixed, flattened buckets, so that
// every rank steps its optimizer with the same gradient.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace nmt::distributed {

class Communicator;

class GradientSync {
 public:
  // Buckets follow the parameters' order, each up to `bucket_bytes` (a
  // parameter larger than that gets a bucket of its own).
  explicit GradientSync(std::vector<torch::Tensor> parameters, int64_t bucket_bytes = 16 << 20);

  // Sums the gradients over the ranks, in place, and `extras` (step
  // statistics such as loss sums) with them in double precision. A
  // parameter's gradient is defined afterwards when it was on any rank: a
  // rank that ran no batch this step takes part with zeros.
  void allreduce(Communicator& communicator, std::vector<double>& extras);

  int64_t buckets() const { return static_cast<int64_t>(flat_.size()); }

 private:
  struct Slot {
    size_t parameter;
    size_t bucket;
    int64_t offset;
  };
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> flat_;  // one per bucket, on the parameters' device
  std::vector<Slot> slots_;
};

}  // namespace nmt::distributed
