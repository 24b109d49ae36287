// Load test of a running `translator --serve`: for each connection count,
// that many clients on keep-alive connections send LibreTranslate requests
// (one sentence each, taken round-robin from a file) for a fixed time.
// Prints requests/s, sentences/s, latency percentiles, failures, and the
// server's resident memory sampled every second (with --server-pid).
//
//   serve_bench --port 8080 --input FILE [--connections 1,8,64] [--seconds 60]
//               [--warmup-seconds 5] [--sentences-per-request 1] [--server-pid PID]
//               [--source de --target en]
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/bench_input.h"
#include "cli/run_main.h"
#include "text/line_reader.h"
#include "util/error.h"
#include "util/proc_status.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string host = "127.0.0.1", input, source = "de", target = "en";
  int port = 8080;
  std::vector<int> connections = {1, 8, 64};
  double seconds = 60, warmup_seconds = 5;
  int sentences_per_request = 1;
  int server_pid = 0;
};

struct Totals {
  std::mutex mutex;
  std::vector<double> latencies;  // seconds, timed phase only
  int64_t requests = 0, sentences = 0, failed = 0;
  std::string first_failure;  // what the first failed request got
};

// Resident memory of `pid` in MiB (VmRSS), 0 if unknown.
double rss_mib(int pid) { return pid > 0 ? std::max(0.0, nmt::proc_status_mib("VmRSS", pid)) : 0; }

// One client: requests back to back until `end`; counts only after `timed_from`.
void client_loop(const Args& a, const std::vector<std::string>& lines, size_t first, Clock::time_point timed_from,
                 Clock::time_point end, Totals& totals) {
  httplib::Client c(a.host, a.port);
  c.set_keep_alive(true);
  c.set_tcp_nodelay(true);
  c.set_read_timeout(120, 0);
  std::vector<double> latencies;
  int64_t requests = 0, sentences = 0, failed = 0;
  for (size_t next = first; Clock::now() < end;) {
    nlohmann::json q = nlohmann::json::array();
    for (int k = 0; k < a.sentences_per_request; ++k) q.push_back(lines[next++ % lines.size()]);
    const std::string body = nlohmann::json{{"q", q}, {"source", a.source}, {"target", a.target}}.dump();
    const auto start = Clock::now();
    const auto r = c.Post("/translate", body, "application/json");
    const auto done = Clock::now();
    if (start < timed_from) continue;
    if (!r || r->status != 200) {
      ++failed;
      std::lock_guard<std::mutex> lock(totals.mutex);
      if (totals.first_failure.empty()) {
        totals.first_failure = r ? "status " + std::to_string(r->status) + ": " + r->body.substr(0, 300)
                                 : "no answer (" + httplib::to_string(r.error()) + ")";
      }
      continue;
    }
    ++requests;
    sentences += a.sentences_per_request;
    latencies.push_back(std::chrono::duration<double>(done - start).count());
  }
  std::lock_guard<std::mutex> lock(totals.mutex);
  totals.latencies.insert(totals.latencies.end(), latencies.begin(), latencies.end());
  totals.requests += requests;
  totals.sentences += sentences;
  totals.failed += failed;
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// For long levels: whether memory still grows after warm-up shows minute by minute.
void print_rss_by_minute(int connections, const std::vector<double>& rss) {
  std::printf("server RSS at %d connections, the highest of each minute (MiB):", connections);
  for (size_t begin = 0; begin < rss.size(); begin += 60) {
    std::printf(" %.0f", *std::max_element(rss.begin() + begin, rss.begin() + std::min(rss.size(), begin + 60)));
  }
  std::printf("\n");
}

void run_level(const Args& a, const std::vector<std::string>& lines, int connections) {
  Totals totals;
  const auto timed_from =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.warmup_seconds));
  const auto end = timed_from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.seconds));
  std::vector<std::thread> clients;
  for (int i = 0; i < connections; ++i) {
    clients.emplace_back(client_loop, std::cref(a), std::cref(lines), static_cast<size_t>(i) * 97, timed_from, end,
                         std::ref(totals));
  }
  std::vector<double> rss;  // one sample a second, timed phase
  while (Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (Clock::now() >= timed_from) rss.push_back(rss_mib(a.server_pid));
  }
  for (auto& t : clients) t.join();
  const double p50 = percentile(totals.latencies, 0.50) * 1000, p99 = percentile(totals.latencies, 0.99) * 1000;
  std::printf("| %d | %.1f | %.1f | %.0f | %.0f | %lld |", connections, totals.requests / a.seconds,
              totals.sentences / a.seconds, p50, p99, static_cast<long long>(totals.failed));
  if (!rss.empty() && a.server_pid > 0) {
    const size_t third = std::max<size_t>(1, rss.size() / 3);
    const double early = *std::max_element(rss.begin(), rss.begin() + third);
    const double late = *std::max_element(rss.end() - third, rss.end());
    std::printf(" %.0f | %.0f |", early, late);
  }
  std::printf("\n");
  if (!totals.first_failure.empty()) std::printf("first failure: %s\n", totals.first_failure.c_str());
  if (rss.size() >= 120) print_rss_by_minute(connections, rss);
  std::fflush(stdout);
}

int bench_main(int argc, char** argv) {
  CLI::App app{"Load test of translator --serve"};
  Args a;
  app.add_option("--host", a.host)->capture_default_str();
  app.add_option("--port", a.port)->capture_default_str();
  app.add_option("--input", a.input, "Sentences, one a line")->required();
  app.add_option("--connections", a.connections, "Concurrent connections per level")->delimiter(',');
  app.add_option("--seconds", a.seconds, "Timed seconds per level")->capture_default_str();
  app.add_option("--warmup-seconds", a.warmup_seconds, "Untimed seconds before each level")->capture_default_str();
  app.add_option("--sentences-per-request", a.sentences_per_request)->capture_default_str();
  app.add_option("--server-pid", a.server_pid, "Sample the server's resident memory");
  app.add_option("--source", a.source)->capture_default_str();
  app.add_option("--target", a.target)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  const auto lines = nmt::bench::read_sentences(a.input);
  std::printf("%zu sentences from %s, %d per request, %.0f s timed after %.0f s warm-up per level\n\n", lines.size(),
              a.input.c_str(), a.sentences_per_request, a.seconds, a.warmup_seconds);
  std::printf("| connections | requests/s | sentences/s | p50 ms | p99 ms | failed |%s\n",
              a.server_pid > 0 ? " RSS MiB, first third | RSS MiB, last third |" : "");
  std::printf("|---|---|---|---|---|---|%s\n", a.server_pid > 0 ? "---|---|" : "");
  for (int n : a.connections) run_level(a, lines, n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nmt::cli::run_main("serve_bench", [&] { return bench_main(argc, argv); });
}
