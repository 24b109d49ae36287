#include "kernels/packed_linear.h"

#include <torch/torch.h>

#ifdef NMT_WITH_ONEDNN

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/int8_rows.h"
#include "kernels/int8_step_product.h"
#include "kernels/scratch.h"
#include "kernels/step_product.h"

namespace nmt::kernels {
namespace {

using dnnl::memory;
using Dims = memory::dims;

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Streams are cheap but not meant to be shared between threads.
dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

// Inputs up to this many values (a decoding step's) are converted to bf16 by
// the calling thread; larger ones (an encoder batch's) by ATen's vectorized,
// multi-threaded cast.
constexpr int64_t kOwnConversionLimit = 1 << 16;

// n floats rounded to bf16 (to nearest, ties to even: c10's conversion, which
// ATen's cast uses too) in a buffer of the calling thread, valid until its
// next call.
void* to_bf16_scratch(const float* x, int64_t n) {
  thread_local std::vector<c10::BFloat16> converted;
  grow_to(converted, n);
  for (int64_t i = 0; i < n; ++i) converted[static_cast<size_t>(i)] = c10::BFloat16(x[i]);
  return converted.data();
}

// A thread's scratch memory for the product, grown as needed.
void* thread_scratchpad(size_t bytes) {
  thread_local std::vector<uint8_t> scratch;
  grow_to(scratch, static_cast<int64_t>(bytes));
  return scratch.data();
}

// int8 (kChar) weights and inputs give int32 sums.
memory::data_type dnnl_type(c10::ScalarType dtype) {
  TORCH_CHECK(dtype == torch::kBFloat16 || dtype == torch::kFloat || dtype == torch::kChar,
              "a packed linear computes in bf16, fp32 or int8, not ", dtype);
  return dtype == torch::kFloat ? memory::data_type::f32
         : dtype == torch::kChar ? memory::data_type::s8
                                 : memory::data_type::bf16;
}

memory::desc rows_desc(int64_t rows, int64_t cols, c10::ScalarType dtype) {
  return memory::desc(Dims{rows, cols}, dnnl_type(dtype), memory::format_tag::ab);
}

memory::desc sums_desc(int64_t rows, int64_t cols, c10::ScalarType dtype) {
  return dtype == torch::kChar ? memory::desc(Dims{rows, cols}, memory::data_type::s32, memory::format_tag::ab)
                               : rows_desc(rows, cols, dtype);
}

// A thread's buffers for int8 products: the quantized input rows, their
// scales and the int32 sums; grown as needed, valid until its next call.
struct Int8Scratch {
  std::vector<int8_t> input;
  std::vector<float> row_scales;
  std::vector<int32_t> sums;
};
Int8Scratch& int8_scratch(int64_t rows, int64_t in, int64_t out) {
  thread_local Int8Scratch scratch;
  grow_to(scratch.input, rows * in);
  grow_to(scratch.row_scales, rows);
  grow_to(scratch.sums, rows * out);
  return scratch;
}

// The primitive for `rows` input rows; oneDNN sizes its work split by the
// calling thread's OpenMP thread count, which is part of the key.
struct Product {
  dnnl::matmul primitive;
  size_t scratchpad_bytes = 0;
};

// More row counts than this (encoder batches vary) start the table afresh.
constexpr size_t kMaxProducts = 512;

// A thread's call of one product for a row count (and relu, and the thread
// count its primitive splits work for).
struct CallKey {
  std::thread::id thread;
  int64_t rows, threads;
  bool relu;
  bool operator==(const CallKey& o) const {
    return thread == o.thread && rows == o.rows && threads == o.threads && relu == o.relu;
  }
};
struct CallKeyHash {
  size_t operator()(const CallKey& k) const {
    return std::hash<std::thread::id>()(k.thread) ^ std::hash<int64_t>()((k.rows * 1024 + k.threads) * 2 + k.relu);
  }
};

}  // namespace

// A thread's ready-made call of one product: oneDNN's memory objects for its
// arguments, pointed at each call's buffers. Building them (and the argument
// map) at every call took about as long as a 4-row product's kernel.
struct PackedLinear::Call {
  Product product;
  memory src, dst, scratch;
  std::unordered_map<int, memory> args;
};

struct PackedLinear::State {
  int64_t in = 0, out = 0;
  // Of the inputs, weights, bias and outputs; int8 (kChar): of the weights
  // and the quantized inputs, with fp32 bias, inputs and outputs.
  c10::ScalarType dtype = torch::kBFloat16;
  memory::desc weights_desc;  // the packed layout oneDNN chose
  memory weights;             // packed [in, out]
  torch::Tensor bias;         // [1, out], or undefined
  torch::Tensor weight_scales;  // int8: [out] fp32, one per output (a row of the weight)
  // fp32: the weights in the layout step_product reads (pack_fp32_weights),
  // which takes every fp32 product: oneDNN holds no fp32 weights.
  torch::Tensor fp32_weights;
  PackedFp32Weights step_weights;
  // int8 as the VNNI product reads it, where the CPU has VNNI: every int8
  // product goes there, and oneDNN holds no int8 weights (before, this was a
  // second copy beside oneDNN's, for a step's rows).
  std::unique_ptr<const Int8StepWeights> int8_step;

  mutable std::mutex mutex;  // guards products and calls
  mutable std::unordered_map<int64_t, Product> products;
  mutable std::unordered_map<CallKey, std::shared_ptr<PackedLinear::Call>, CallKeyHash> calls;

  // int8: the bare product into int32 sums (scales, bias and relu follow in
  // dequantize_rows, and product_for asks for no relu).
  dnnl::matmul::primitive_desc describe(int64_t rows, const memory::desc& weights_layout, bool relu) const {
    const bool int8 = dtype == torch::kChar;
    const memory::desc bias_desc = bias.defined() && !int8 ? rows_desc(1, out, dtype) : memory::desc();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (relu) {  // int8's product_for never asks
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    return dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(rows_desc(rows, in, dtype), weights_layout, bias_desc, sums_desc(rows, out, dtype)), attr,
        cpu_engine());
  }

  Product product_for(int64_t rows, bool relu) const {
    if (dtype == torch::kChar) relu = false;  // applied after the product
    const int64_t key = (rows * 1024 + at::get_num_threads()) * 2 + (relu ? 1 : 0);
    std::lock_guard<std::mutex> lock(mutex);
    auto found = products.find(key);
    if (found != products.end()) return found->second;
    if (products.size() >= kMaxProducts) products.clear();
    // Any row count takes the layout chosen once (checked for 1-128 rows: the
    // same brgemm kernel family); were it refused, oneDNN would say so here.
    const auto pd = describe(rows, weights_desc, relu);
    Product p{dnnl::matmul(pd), pd.scratchpad_desc().get_size()};
    products.emplace(key, p);
    return p;
  }
};

// oneDNN's product exists for fp32 everywhere, for bf16 only on CPUs with
// AVX-512 (or newer): elsewhere describing one throws, and ATen's product
// (which has a fallback of its own) serves. Probed once per dtype.
bool PackedLinear::available(c10::ScalarType dtype) {
  static const auto supports = [](memory::data_type type) {
    try {
      const memory::desc rows(Dims{1, 16}, type, memory::format_tag::ab);
      const memory::desc weights(Dims{16, 16}, type, memory::format_tag::any);
      const auto sums_type = type == memory::data_type::s8 ? memory::data_type::s32 : type;
      const memory::desc sums(Dims{1, 16}, sums_type, memory::format_tag::ab);
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(rows, weights, memory::desc(), sums), cpu_engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  };
  // int8 only with VNNI, ours or oneDNN's: without it oneDNN's int8 kernels
  // sum pairs of products in 16 bits, which saturate (AVX2: outputs off by
  // tens of percent, tests/kernels_int8_test.cpp under scripts/test_isa.sh).
  static const auto vnni = [] {
    const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    const auto has = [isa](dnnl::cpu_isa i) { return (isa & static_cast<unsigned>(i)) == static_cast<unsigned>(i); };
    return Int8StepWeights::available() || has(dnnl::cpu_isa::avx512_core_vnni) || has(dnnl::cpu_isa::avx2_vnni);
  };
  static const bool bf16 = supports(memory::data_type::bf16), fp32 = supports(memory::data_type::f32),
                    int8 = supports(memory::data_type::s8) && vnni();
  return dtype == torch::kBFloat16 ? bf16 : dtype == torch::kFloat ? fp32 : dtype == torch::kChar && int8;
}

std::string PackedLinear::onednn_isa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "SSE4.1";
    case dnnl::cpu_isa::avx: return "AVX";
    case dnnl::cpu_isa::avx2: return "AVX2";
    case dnnl::cpu_isa::avx2_vnni: return "AVX2 with VNNI";
    case dnnl::cpu_isa::avx512_core: return "AVX-512 core";
    case dnnl::cpu_isa::avx512_core_vnni: return "AVX-512 core with VNNI";
    case dnnl::cpu_isa::avx512_core_bf16: return "AVX-512 core with bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "AVX-512 core with AMX";
    default: return "other (oneDNN's code " + std::to_string(static_cast<int>(dnnl::get_effective_cpu_isa())) + ")";
  }
}

PackedLinear::PackedLinear(const torch::Tensor& weight, const torch::Tensor& bias, c10::ScalarType dtype)
    : state_(new State) {
  TORCH_CHECK(weight.dim() == 2, "a packed linear needs a 2-D weight [out, in], got ", weight.sizes());
  State& s = *state_;
  s.dtype = dtype;
  const auto type = dnnl_type(dtype);
  s.out = weight.size(0);
  s.in = weight.size(1);
  const bool int8 = dtype == torch::kChar;
  if (bias.defined()) {
    TORCH_CHECK(bias.dim() == 1 && bias.size(0) == s.out, "bias ", bias.sizes(), " does not match weight ",
                weight.sizes());
    s.bias = bias.detach().to(torch::kCPU, int8 ? torch::kFloat : dtype).contiguous().view({1, s.out});
  }
  if (dtype == torch::kFloat) {
    s.fp32_weights = pack_fp32_weights(weight);
    s.step_weights = packed_fp32_view(s.fp32_weights, s.in, s.out);
    return;
  }
  // int8: symmetric per output, as inputs are per row (kernels/int8_rows.h).
  torch::Tensor plain;
  if (int8) {
    const torch::Tensor w = weight.detach().to(torch::kCPU, torch::kFloat).contiguous();
    plain = torch::empty({s.out, s.in}, torch::kChar);
    s.weight_scales = torch::empty({s.out}, torch::kFloat);
    quantize_rows(w.data_ptr<float>(), s.out, s.in, plain.data_ptr<int8_t>(), s.weight_scales.data_ptr<float>());
    if (Int8StepWeights::available()) {  // the VNNI kernel takes every row count: no oneDNN copy
      s.int8_step = std::make_unique<const Int8StepWeights>(plain.data_ptr<int8_t>(), s.out, s.in);
      return;
    }
  } else {
    plain = weight.detach().to(torch::kCPU, dtype).contiguous();
  }
  // oneDNN's [in, out] view of the row-major [out, in] weight is layout "ba".
  const memory::desc plain_desc(Dims{s.in, s.out}, type, memory::format_tag::ba);
  const memory::desc any(Dims{s.in, s.out}, type, memory::format_tag::any);
  s.weights_desc = s.describe(128, any, false).weights_desc();
  s.weights = memory(s.weights_desc, cpu_engine());
  memory source(plain_desc, cpu_engine(), plain.data_ptr());
  dnnl::reorder(source, s.weights).execute(thread_stream(), source, s.weights);
  thread_stream().wait();
}

PackedLinear::~PackedLinear() = default;

int64_t PackedLinear::in_features() const { return state_->in; }
int64_t PackedLinear::out_features() const { return state_->out; }

std::shared_ptr<PackedLinear::Call> PackedLinear::call_for(int64_t rows, bool relu) const {
  const State& s = *state_;
  const CallKey key{std::this_thread::get_id(), rows, at::get_num_threads(), relu};
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto found = s.calls.find(key);
    if (found != s.calls.end()) return found->second;
  }
  const auto& engine = cpu_engine();
  auto c = std::make_shared<Call>();
  c->product = s.product_for(rows, relu);
  c->src = memory(rows_desc(rows, s.in, s.dtype), engine, DNNL_MEMORY_NONE);
  c->dst = memory(sums_desc(rows, s.out, s.dtype), engine, DNNL_MEMORY_NONE);
  c->scratch = memory(memory::desc(Dims{static_cast<int64_t>(c->product.scratchpad_bytes)}, memory::data_type::u8,
                                   memory::format_tag::a),
                      engine, DNNL_MEMORY_NONE);
  c->args = {{DNNL_ARG_SRC, c->src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, c->dst},
             {DNNL_ARG_SCRATCHPAD, c->scratch}};
  if (s.bias.defined() && s.dtype != torch::kChar) {  // int8 adds its bias after the product
    c->args.emplace(DNNL_ARG_BIAS, memory(rows_desc(1, s.out, s.dtype), engine, s.bias.data_ptr()));
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.calls.size() >= kMaxProducts) s.calls.clear();  // callers hold their own references
  s.calls.emplace(key, c);
  return c;
}

c10::ScalarType PackedLinear::dtype() const { return state_->dtype; }

torch::Tensor PackedLinear::forward(const torch::Tensor& x, bool relu) const {
  RECORD_FUNCTION("nmt::packed_linear", std::vector<c10::IValue>());  // named in operator profiles
  const State& s = *state_;
  TORCH_CHECK(x.dim() >= 1 && x.size(-1) == s.in, "a packed linear of ", s.in, " inputs got ", x.sizes());
  TORCH_CHECK(x.device().is_cpu(), "a packed linear runs on the CPU");
  // Rows of any leading shape, read and written in place: no reshape or view
  // operators around the product (a decoding step calls ~20 products).
  const int64_t rows = s.in == 0 ? 0 : x.numel() / s.in;
  c10::SmallVector<int64_t, 4> out_sizes(x.sizes().begin(), x.sizes().end());
  out_sizes.back() = s.out;
  const bool int8 = s.dtype == torch::kChar;
  torch::Tensor out = torch::empty(out_sizes, x.options().dtype(int8 ? torch::kFloat : s.dtype));
  if (rows == 0) return out;
  if (int8 || s.dtype == torch::kFloat) {
    const torch::Tensor input =  // a step's fp32 rows as they are, without even a no-op cast's dispatch
        x.scalar_type() == torch::kFloat && x.is_contiguous() ? x : x.to(torch::kFloat).contiguous();
    forward_rows(input.data_ptr<float>(), rows, out.data_ptr<float>(), relu);
    return out;
  }
  if (x.scalar_type() == s.dtype && x.is_contiguous()) {
    run_onednn(x.data_ptr(), rows, relu, out.data_ptr());
  } else if (x.scalar_type() == torch::kFloat && s.dtype == torch::kBFloat16 && x.is_contiguous() &&
             rows * s.in <= kOwnConversionLimit) {
    // A step's fp32 activations (a layer norm's) into bf16 in this thread's
    // buffer: the rounding autocast's cast makes, without its three operators.
    run_onednn(to_bf16_scratch(x.data_ptr<float>(), rows * s.in), rows, relu, out.data_ptr());
  } else {
    const torch::Tensor input = x.to(s.dtype).contiguous();
    run_onednn(input.data_ptr(), rows, relu, out.data_ptr());
  }
  return out;
}

void PackedLinear::forward_rows(const float* x, int64_t rows, float* out, bool relu) const {
  const State& s = *state_;
  TORCH_CHECK(s.dtype != torch::kBFloat16, "a bf16 packed linear has bf16 outputs: call forward");
  if (rows == 0) return;
  if (s.dtype == torch::kChar) {
    forward_int8(x, rows, relu, out);
  } else {  // fp32: at any row count, so that a row's bits do not depend on its batch (kernels/step_product.h)
    step_product(x, rows, s.step_weights, s.bias.defined() ? s.bias.data_ptr<float>() : nullptr, relu, out);
  }
}

int64_t PackedLinear::step_kernel_rows() const {
  const State& s = *state_;
  if (s.dtype == torch::kFloat) return std::numeric_limits<int64_t>::max();
  return s.dtype == torch::kChar && s.int8_step ? std::numeric_limits<int64_t>::max() : 0;
}

void PackedLinear::run_onednn(const void* src, int64_t rows, bool relu, void* dst) const {
  const auto c = call_for(rows, relu);  // this thread's own: its handles are set here alone
  c->src.set_data_handle(const_cast<void*>(src));
  c->dst.set_data_handle(dst);
  c->scratch.set_data_handle(thread_scratchpad(c->product.scratchpad_bytes));
  c->product.primitive.execute(thread_stream(), c->args);
  thread_stream().wait();
}

// Rows quantized, their int32 sums (the VNNI product where the CPU has
// VNNI, else oneDNN's), scaled back to fp32.
void PackedLinear::forward_int8(const float* x, int64_t rows, bool relu, float* out) const {
  const State& s = *state_;
  Int8Scratch& scratch = int8_scratch(rows, s.in, s.out);
  if (s.int8_step) {
    const int64_t padded_in = s.int8_step->padded_in();
    thread_local std::vector<uint8_t> shifted;
    grow_to(shifted, rows * padded_in);
    quantize_rows_shifted(x, rows, s.in, padded_in, shifted.data(), scratch.row_scales.data());
    s.int8_step->sums(shifted.data(), rows, scratch.sums.data());
  } else {
    quantize_rows(x, rows, s.in, scratch.input.data(), scratch.row_scales.data());
    run_onednn(scratch.input.data(), rows, relu, scratch.sums.data());  // int8: relu comes after (product_for)
  }
  dequantize_rows(scratch.sums.data(), rows, s.out, scratch.row_scales.data(), s.weight_scales.data_ptr<float>(),
                  s.bias.defined() ? s.bias.data_ptr<float>() : nullptr, relu, out);
}

}  // namespace nmt::kernels

#else  // built without oneDNN's API: callers check available() first

namespace nmt::kernels {

struct PackedLinear::State {};

bool PackedLinear::available(c10::ScalarType) { return false; }
std::string PackedLinear::onednn_isa() { return "none (built without libdnnl-dev)"; }

PackedLinear::PackedLinear(const torch::Tensor&, const torch::Tensor&, c10::ScalarType) {
  TORCH_CHECK(false, "this build has no oneDNN API (install libdnnl-dev and rebuild)");
}
PackedLinear::~PackedLinear() = default;
torch::Tensor PackedLinear::forward(const torch::Tensor&, bool) const { return {}; }
void PackedLinear::forward_rows(const float*, int64_t, float*, bool) const {}
c10::ScalarType PackedLinear::dtype() const { return torch::kFloat; }
int64_t PackedLinear::step_kernel_rows() const { return 0; }
int64_t PackedLinear::in_features() const { return 0; }
int64_t PackedLinear::out_features() const { return 0; }

}  // namespace nmt::kernels

#endif
