#include "util/precision.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include "util/error.h"

namespace nmt {
namespace {

// libtorch 2.4 replaced the per-device autocast setters with device-typed ones.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool autocast_on(c10::DeviceType type) { return at::autocast::is_autocast_enabled(type); }
void set_autocast_on(c10::DeviceType type, bool on) { at::autocast::set_autocast_enabled(type, on); }
at::ScalarType autocast_dtype(c10::DeviceType type) { return at::autocast::get_autocast_dtype(type); }
void set_autocast_dtype(c10::DeviceType type, at::ScalarType dtype) { at::autocast::set_autocast_dtype(type, dtype); }
#else
bool autocast_on(c10::DeviceType type) {
  return type == c10::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
}
void set_autocast_on(c10::DeviceType type, bool on) {
  if (type == c10::kCPU) {
    at::autocast::set_cpu_enabled(on);
  } else {
    at::autocast::set_enabled(on);
  }
}
at::ScalarType autocast_dtype(c10::DeviceType type) {
  return type == c10::kCPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
}
void set_autocast_dtype(c10::DeviceType type, at::ScalarType dtype) {
  if (type == c10::kCPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
}
#endif

bool cpuinfo_has_flag(const std::string& wanted) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::string word;
    while (words >> word) {
      if (word == wanted) return true;
    }
    return false;  // every core lists the same flags
  }
  return false;
}

// Inside a PrecisionScope for int8, on this thread.
thread_local bool int8_products = false;

}  // namespace

bool onednn_isa_capped_below(const std::string& isa) {
  // oneDNN's names (ONEDNN_MAX_CPU_ISA, or DNNL_MAX_CPU_ISA before it), lowest first.
  static const std::vector<std::string> order{
      "SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX512_CORE", "AVX512_CORE_VNNI", "AVX512_CORE_BF16", "AVX512_CORE_AMX"};
  const char* set = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (!set || !*set) set = std::getenv("DNNL_MAX_CPU_ISA");
  if (!set || !*set) return false;
  std::string cap(set);
  std::transform(cap.begin(), cap.end(), cap.begin(), [](unsigned char c) { return std::toupper(c); });
  const auto at = std::find(order.begin(), order.end(), cap), wanted = std::find(order.begin(), order.end(), isa);
  return at != order.end() && wanted != order.end() && at < wanted;
}

bool cpu_has_native_bf16() {
  static const bool has = at::hasMKLDNN() && (cpuinfo_has_flag("avx512_bf16") || cpuinfo_has_flag("amx_bf16")) &&
                          !onednn_isa_capped_below("AVX512_CORE_BF16");
  return has;
}

bool cpu_has_avx512_vnni() {
  static const bool has = cpuinfo_has_flag("avx512_vnni");
  return has;
}

bool autocast_enabled_on_cpu() { return autocast_on(c10::kCPU); }

std::optional<c10::ScalarType> active_autocast_dtype(const c10::Device& device) {
  if (!device.is_cpu() && !device.is_cuda()) return std::nullopt;
  if (!autocast_on(device.type())) return std::nullopt;
  return autocast_dtype(device.type());
}

const char* precision_name(Precision p) {
  return p == Precision::kBf16 ? "bf16" : p == Precision::kInt8 ? "int8" : "fp32";
}

PrecisionChoice choose_precision(const std::string& wanted, const c10::Device& device) {
  if (wanted == "fp32") return {Precision::kFp32, "asked for"};
  if (wanted == "int8") {
    if (!device.is_cpu()) {
      throw UsageError("precision \"int8\" runs on the CPU only; use \"bf16\", \"fp32\" or \"auto\" on " +
                       device.str() + ".");
    }
    return {Precision::kInt8, "asked for"};
  }
  if (wanted == "bf16") {
    if (device.is_cpu() && !at::hasMKLDNN()) {
      throw UsageError("precision \"bf16\" needs a LibTorch built with oneDNN on the CPU; use \"fp32\" or \"auto\".");
    }
    return {Precision::kBf16, "asked for"};
  }
  if (wanted != "auto") {
    throw UsageError("precision must be \"fp32\", \"bf16\", \"int8\" or \"auto\", not \"" + wanted + "\".");
  }
  if (device.is_cuda()) {
    // Every GPU LibTorch 1.13+ runs carries bf16 autocast; tensor cores (sm80+) make it fast.
    return {Precision::kBf16, "auto: CUDA device"};
  }
  if (cpu_has_native_bf16()) return {Precision::kBf16, "auto: the CPU has native bf16 (oneDNN)"};
  return {Precision::kFp32, "auto: the CPU has no native bf16 instructions"};
}

PrecisionChoice choose_decoding_precision(const std::string& wanted, const c10::Device& device, bool int8_available) {
  if (wanted == "auto" && device.is_cpu() && int8_available && cpu_has_avx512_vnni()) {
    return {Precision::kInt8, "auto: the CPU has AVX-512 VNNI, where int8 decodes fastest"};
  }
  return choose_precision(wanted, device);
}

bool int8_products_active() { return int8_products; }

PrecisionScope::PrecisionScope(Precision precision, const c10::Device& device) {
  if (precision == Precision::kInt8) {
    was_int8_ = int8_products;
    int8_products = true;
    int8_ = true;
    return;
  }
  if (precision != Precision::kBf16) return;
  type_ = device.type();
  // Nested scopes leave autocast (on or off, and its dtype) as they found it.
  was_on_ = autocast_on(type_);
  was_dtype_ = autocast_dtype(type_);
  set_autocast_dtype(type_, at::kBFloat16);
  set_autocast_on(type_, true);
  active_ = true;
}

PrecisionScope::~PrecisionScope() {
  if (int8_) int8_products = was_int8_;
  if (!active_) return;
  set_autocast_dtype(type_, was_dtype_);
  set_autocast_on(type_, was_on_);
  if (!was_on_) at::autocast::clear_cache();
}

}  // namespace nmt
