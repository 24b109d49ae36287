// Numeric precision of training and decoding: fp32 everywhere, or bf16 mixed
// precision (autocast: matrix products in bf16, master weights, optimizer
// state, the loss and the residual stream in fp32), and the choice `auto`
// makes on this machine; for decoding on the CPU also int8 (the linear maps'
// products in int8, kernels/packed_linear.h; everything else fp32).
#pragma once

#include <optional>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

namespace nmt {

enum class Precision { kFp32, kBf16, kInt8 };

struct PrecisionChoice {
  Precision precision = Precision::kFp32;
  std::string reason;  // one clause for the log: why this precision
};

// `wanted` is fp32, bf16, int8 (CPU only: UsageError elsewhere; whether this
// CPU runs int8 products is the caller's to check) or auto (UsageError
// otherwise); auto never picks int8 here (see choose_decoding_precision).
// auto picks bf16 where
// the device runs it fast: CUDA (its capability is not checked: pre-Ampere
// GPUs run bf16 slowly and should ask for fp32), or a CPU whose oneDNN has
// native bf16 instructions (avx512_bf16 or AMX); else fp32. bf16 asked for
// explicitly is honoured wherever it can run at all (emulated on older CPUs).
PrecisionChoice choose_precision(const std::string& wanted, const c10::Device& device);

// The precision a translator decodes in: as choose_precision, except that
// auto picks int8 on a CPU with AVX-512 VNNI where `int8_available` (the
// caller's check that this build runs int8 products): there int8 decodes
// fastest at every beam and batch, for BLEU within +-0.3 of fp32 on the three
// recipe models measured (docs/performance.md).
PrecisionChoice choose_decoding_precision(const std::string& wanted, const c10::Device& device, bool int8_available);

// True when the CPU has avx512_bf16 or amx_bf16, ATen was built with oneDNN
// and ONEDNN_MAX_CPU_ISA does not cap oneDNN below them.
bool cpu_has_native_bf16();

// Whether the environment's ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA) caps
// oneDNN below `isa`, one of oneDNN's names ("AVX512_CORE", ...): set to
// make this CPU run what an older one would (scripts/test_isa.sh).
bool onednn_isa_capped_below(const std::string& isa);

// True when the CPU has AVX-512 VNNI (int8 dot products in 512-bit vectors).
bool cpu_has_avx512_vnni();

const char* precision_name(Precision p);

// True inside a bf16 PrecisionScope for the CPU (matrix products then go to oneDNN).
bool autocast_enabled_on_cpu();

// The dtype autocast gives matrix products on `device` right now, or nullopt
// where autocast is off.
std::optional<c10::ScalarType> active_autocast_dtype(const c10::Device& device);

// True inside a PrecisionScope for int8 on this thread: inference's linear
// maps then multiply in int8 (kernels/inference_weights.h).
bool int8_products_active();

// For the scope's lifetime, on this thread: bf16 autocast on `device` (CPU or
// CUDA), or int8 products; nothing for fp32.
class PrecisionScope {
 public:
  PrecisionScope(Precision precision, const c10::Device& device);
  ~PrecisionScope();
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  c10::DeviceType type_ = c10::kCPU;
  bool active_ = false, was_on_ = false;
  bool int8_ = false, was_int8_ = false;
  c10::ScalarType was_dtype_ = c10::ScalarType::BFloat16;
};

}  // namespace nmt
