#include "util/blas_kernels.h"

#include <unistd.h>

#include <cstdlib>
#include <set>

#include "util/runtime_symbol.h"

namespace nmt {
namespace {

constexpr const char* kFallbackVariable = "NMT_BLAS_FALLBACK_CORE";

std::string openblas_core_name() {
  static const auto get = runtime_symbol<char* (*)()>("openblas_get_corename");
  const char* name = get ? get() : nullptr;
  return name ? name : "";
}

}  // namespace

CpuVectors this_cpu_vectors() {
  CpuVectors cpu;
  cpu.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  cpu.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return cpu;
}

std::string blas_core_to_ask_for(const std::string& chosen, const CpuVectors& cpu) {
  // OpenBLAS's names for cores without AVX (case as openblas_get_corename
  // gives them): the ones an unknown newer CPU falls back to.
  static const std::set<std::string> kPreAvx = {"Prescott", "Core2", "Penryn",     "Dunnington", "Nehalem",
                                                "Atom",     "Katmai", "Coppermine", "Northwood",  "Banias"};
  if (!kPreAvx.count(chosen)) return "";
  if (cpu.avx512) return "SkylakeX";
  if (cpu.avx2_fma) return "Haswell";
  return "";
}

void rerun_with_fitting_blas_kernels(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // the user's choice, or ours already
  const std::string chosen = openblas_core_name();
  const std::string wanted = blas_core_to_ask_for(chosen, this_cpu_vectors());
  if (wanted.empty()) return;
  if (::setenv("OPENBLAS_CORETYPE", wanted.c_str(), 1) != 0 || ::setenv(kFallbackVariable, chosen.c_str(), 1) != 0)
    return;
  ::execv("/proc/self/exe", argv);
  // Still here: the executable could not be started again; run on as we are.
  ::unsetenv("OPENBLAS_CORETYPE");
  ::unsetenv(kFallbackVariable);
}

std::string blas_kernels_description() {
  const std::string name = openblas_core_name();
  if (name.empty()) return "";
  const char* fallback = std::getenv(kFallbackVariable);
  const char* asked = std::getenv("OPENBLAS_CORETYPE");
  if (fallback && *fallback && asked && name != fallback)
    return name + ", asked for: OpenBLAS took this CPU for " + fallback;
  return name;
}

}  // namespace nmt
