// Operator-level profile for the benchmarks: LibTorch's autograd profiler
// (legacy event lists) around a piece of work, folded into self and total
// CPU time per operator name, printed as a table of the top rows.
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <torch/csrc/autograd/profiler_legacy.h>

namespace nmt::bench {

inline void print_op_profile(const std::function<void()>& work, size_t top_rows) {
  namespace prof = torch::autograd::profiler;
  prof::enableProfilerLegacy(torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
  work();
  const auto lists = prof::disableProfilerLegacy();
  struct Row {
    double self_us = 0, total_us = 0;
    int64_t calls = 0;
  };
  std::map<std::string, Row> rows;
  double all_us = 0;
  for (const auto& events : lists) {
    // Ranges nest per thread: a child's time is removed from its parent's self time.
    struct Open {
      const prof::LegacyEvent* push;
      double child_us;
    };
    std::vector<Open> stack;
    for (const auto& e : events) {
      if (e.kind() == prof::EventKind::PushRange) {
        stack.push_back({&e, 0});
      } else if (e.kind() == prof::EventKind::PopRange && !stack.empty()) {
        const Open open = stack.back();
        stack.pop_back();
        const double us = open.push->cpuElapsedUs(e);
        Row& r = rows[open.push->name()];
        r.total_us += us;
        r.self_us += us - open.child_us;
        r.calls += 1;
        if (!stack.empty()) stack.back().child_us += us;
        else all_us += us;
      }
    }
  }
  std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.self_us > b.second.self_us; });
  std::printf("| operator | self ms | self %% | total ms | calls |\n|---|---|---|---|---|\n");
  for (size_t i = 0; i < std::min(top_rows, sorted.size()); ++i) {
    const auto& [name, r] = sorted[i];
    std::printf("| %s | %.1f | %.1f%% | %.1f | %lld |\n", name.c_str(), r.self_us / 1000, 100 * r.self_us / all_us,
                r.total_us / 1000, static_cast<long long>(r.calls));
  }
  std::printf("(all profiled ranges: %.1f ms)\n\n", all_us / 1000);
}

}  // namespace nmt::bench
