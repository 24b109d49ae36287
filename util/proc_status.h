// Linux process memory figures from /proc/PID/status: what metrics.jsonl
// records on each training line, and what the benchmarks and tests read.
#pragma once

#include <fstream>
#include <string>

namespace nmt {

// `field` ("VmRSS", "VmHWM", ...) of process `pid` (0: this process) in MiB;
// -1 where /proc cannot tell.
inline double proc_status_mib(const std::string& field, int pid = 0) {
  std::ifstream in(pid > 0 ? "/proc/" + std::to_string(pid) + "/status" : std::string("/proc/self/status"));
  std::string key;
  while (in >> key) {
    if (key == field + ":") {
      double kib = 0;
      in >> kib;  // "VmRSS:   123456 kB"
      return kib / 1024.0;
    }
    std::getline(in, key);
  }
  return -1;
}

}  // namespace nmt
