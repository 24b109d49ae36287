#include "kernels/cpu_report.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kernels/int8_step_product.h"
#include "kernels/packed_linear.h"
#include "kernels/vector_isa.h"
#include "util/blas_kernels.h"
#include "util/runtime_symbol.h"

namespace nmt::kernels {
namespace {

// /proc/cpuinfo's model name, with the flags that choose kernels here.
std::string processor() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown", flags;
  while (std::getline(in, line) && (model == "unknown" || flags.empty())) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_first_of(" \t"));
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model" && line.rfind("model name", 0) == 0) model = value;
    if (key == "flags") flags = " " + value + " ";
  }
  std::string present;
  for (const char* f : {"avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8"}) {
    if (flags.find(std::string(" ") + f + " ") != std::string::npos)
      present += std::string(present.empty() ? "" : " ") + f;
  }
  return model + " (" + (present.empty() ? "no AVX2" : present) + ")";
}

std::string env_or(const char* name, const char* otherwise) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(name) + "=" + v : otherwise;
}

std::string openblas() {
  const std::string kernels = blas_kernels_description();  // util/blas_kernels.h
  if (kernels.empty()) return "not OpenBLAS";
  const auto config = runtime_symbol<char* (*)()>("openblas_get_config");
  return "core " + kernels + (config ? std::string(", ") + config() : "") + " (" +
         env_or("OPENBLAS_CORETYPE", "OPENBLAS_CORETYPE unset") + ")";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> cpu_report() {
  const VectorIsa isa = cpu_vector_isa();
  std::vector<std::pair<std::string, std::string>> r;
  r.emplace_back("cpu", processor());
  r.emplace_back("openblas", openblas());
  r.emplace_back("onednn",
                 PackedLinear::onednn_isa() + " (" + env_or("ONEDNN_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA unset") + ")");
  r.emplace_back("vector isa", std::string(isa_name(isa)) + " (" + env_or("NMT_CPU_ISA", "NMT_CPU_ISA unset") + ")");
  r.emplace_back("fp32 products", std::string("kernels/step_product, ") + isa_name(isa) + ", at every row count");
  r.emplace_back("int8 products", !PackedLinear::available(c10::kChar) ? "none (no VNNI: --precision int8 is refused)"
                                  : Int8StepWeights::available()
                                      ? "kernels/int8_step_product (AVX-512 VNNI) at every row count"
                                      : "oneDNN's at every row count");
  r.emplace_back("bf16 products",
                 PackedLinear::available(c10::kBFloat16) ? "oneDNN's" : "ATen's (oneDNN has none at its ISA here)");
  return r;
}

std::string cpu_report_text() {
  std::ostringstream out;
  for (const auto& [what, which] : cpu_report()) out << what << ": " << which << "\n";
  return out.str();
}

}  // namespace nmt::kernels
