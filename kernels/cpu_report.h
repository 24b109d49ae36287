// What this CPU is and which kernel each product of inference runs on it:
// the processor, OpenBLAS's core (training's fp32 products), oneDNN's ISA
// (bf16 and int8 products), this library's vector ISA (fp32 products,
// attention, norms; kernels/vector_isa.h) and int8 path. scripts/test.sh
// prints it first, so that a test log says what it ran on.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nmt::kernels {

// (what, which) pairs, in the order above.
std::vector<std::pair<std::string, std::string>> cpu_report();

// cpu_report() as "what: which" lines.
std::string cpu_report_text();

}  // namespace nmt::kernels
