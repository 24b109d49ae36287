#!/usr/bin/env bash
# The tests whose results depend on the vector instructions, with every
# library's choice forced down to ISA (avx2, default; or scalar, for this
# library's kernels alone; avx2_vnni: AVX2 with oneDNN's VNNI int8): this library's kernels (NMT_CPU_ISA), oneDNN's
# (ONEDNN_MAX_CPU_ISA) and OpenBLAS's (OPENBLAS_CORETYPE), so that one CPU
# checks what a CPU without AVX-512 would run. Needs build/ (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
isa=${1:-avx2}
case "$isa" in
  avx2) env_isa=(NMT_CPU_ISA=avx2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell) ;;
  # AVX2 with VNNI (AVX-VNNI: Alder Lake, Zen 5): int8 through oneDNN's kernels.
  avx2_vnni) env_isa=(NMT_CPU_ISA=avx2 ONEDNN_MAX_CPU_ISA=AVX2_VNNI OPENBLAS_CORETYPE=Haswell) ;;
  scalar) env_isa=(NMT_CPU_ISA=scalar ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell) ;;
  *) echo "test_isa.sh: ISA '$isa' is not avx2, avx2_vnni or scalar" >&2; exit 2 ;;
esac
# The sample model the translation tests share is trained at the CPU's own
# ISA (the trainer picks bf16 where the CPU has it), as the whole suite's
# tests that read it expect: here, with its first test, before any forcing.
(cd build && ctest --output-on-failure -R '^BatchInvariance\.Fp32GreedyGivesEveryLineTheSameBitsInAnyBatchOnAnyThreads$' >/dev/null) ||
  { echo "test_isa.sh: the sample model's first test failed at the CPU's own ISA" >&2; exit 1; }
echo "test_isa.sh: ${env_isa[*]}"
env "${env_isa[@]}" build/cpu_report | sed 's/^/test_isa.sh: /'
cd build
# Kernels, the modules' inference paths, the fused step and whole translations.
env "${env_isa[@]}" ctest --output-on-failure -j "${NMT_TEST_JOBS:-2}" \
  -R '(^|/)(StepProduct|PackedLinear|Int8Rows|Int8StepProduct|StepAttention|StepAttentionTest|ResidualNorm|LogSoftmax|TopK|DecoderStep|StepTeam|MultiHeadAttention|Linear|Precision|BatchInvariance)\.'
