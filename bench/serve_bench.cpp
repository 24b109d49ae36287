// Load test of a running `translator --serve`: for each connection count,
// that many clients on keep-alive connections send LibreTranslate requests
// (one sentence each, taken round-robin from a file) for a fixed time.
// Prints requests/s, sentences/s, latency percentiles, failures, and the
// server's resident memory sampled every second (with --server-pid).
// With --pairs the clients are spread over several language pairs (each
// reading the file of its source language, --input-of de=FILE) and the table
// has a row per pair; --limited-key adds clients whose key has a per-minute
// limit, to show that it holds (their 200s and 429s) while the others go on.
//
//   serve_bench --port 8080 --input FILE [--connections 1,8,64] [--seconds 60]
//               [--warmup-seconds 5] [--sentences-per-request 1] [--server-pid PID]
//               [--source de --target en] [--pairs de-en,de-fr --input-of de=FILE ...]
//               [--api-key KEY] [--limited-key KEY --limited-clients 2]
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
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
  std::string host = "127.0.0.1", input, source = "de", target = "en", api_key, limited_key;
  std::vector<std::string> pairs, input_of;  // "de-en"; "de=FILE"
  int limited_clients = 0;
  int port = 8080;
  std::vector<int> connections = {1, 8, 64};
  double seconds = 60, warmup_seconds = 5;
  int sentences_per_request = 1;
  int server_pid = 0;
};

struct Totals {
  std::mutex mutex;
  std::vector<double> latencies;  // seconds, timed phase only
  int64_t requests = 0, sentences = 0, failed = 0, refused = 0;  // refused: 429s of a limited key
  std::string first_failure;  // what the first failed request got
};

// What one client sends: a pair, its source sentences, its key.
struct Load {
  std::string source, target, key;
  const std::vector<std::string>* lines = nullptr;
  bool limited = false;  // a 429 is the expected answer past the key's limit, not a failure
};

// Resident memory of `pid` in MiB (VmRSS), 0 if unknown.
double rss_mib(int pid) { return pid > 0 ? std::max(0.0, nmt::proc_status_mib("VmRSS", pid)) : 0; }

// One client: requests back to back until `end`; counts only after `timed_from`.
void client_loop(const Args& a, const Load& load, size_t first, Clock::time_point timed_from, Clock::time_point end,
                 Totals& totals) {
  const auto& lines = *load.lines;
  httplib::Client c(a.host, a.port);
  c.set_keep_alive(true);
  c.set_tcp_nodelay(true);
  c.set_read_timeout(120, 0);
  std::vector<double> latencies;
  int64_t requests = 0, sentences = 0, failed = 0, refused = 0;
  for (size_t next = first; Clock::now() < end;) {
    nlohmann::json q = nlohmann::json::array();
    for (int k = 0; k < a.sentences_per_request; ++k) q.push_back(lines[next++ % lines.size()]);
    nlohmann::json request = {{"q", q}, {"source", load.source}, {"target", load.target}};
    if (!load.key.empty()) request["api_key"] = load.key;
    const auto start = Clock::now();
    const auto r = c.Post("/translate", request.dump(), "application/json");
    const auto done = Clock::now();
    if (start < timed_from) continue;
    if (load.limited && r && r->status == 429) {
      ++refused;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // as a polite client backs off
      continue;
    }
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
  totals.refused += refused;
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

void print_row(const std::string& label, Totals& t, double seconds) {
  const double p50 = percentile(t.latencies, 0.50) * 1000, p99 = percentile(t.latencies, 0.99) * 1000;
  std::printf("| %s | %.1f | %.1f | %.0f | %.0f | %lld |", label.c_str(), t.requests / seconds, t.sentences / seconds,
              p50, p99, static_cast<long long>(t.failed));
}

void run_level(const Args& a, const std::vector<Load>& loads, const std::vector<Load>& limited, int connections) {
  std::vector<std::unique_ptr<Totals>> totals;  // per load, then one for the limited clients
  for (size_t i = 0; i <= loads.size(); ++i) totals.push_back(std::make_unique<Totals>());
  const auto timed_from =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.warmup_seconds));
  const auto end = timed_from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.seconds));
  std::vector<std::thread> clients;
  for (int i = 0; i < connections; ++i) {
    const size_t l = static_cast<size_t>(i) % loads.size();
    clients.emplace_back(client_loop, std::cref(a), std::cref(loads[l]), static_cast<size_t>(i) * 97, timed_from, end,
                         std::ref(*totals[l]));
  }
  for (size_t i = 0; i < limited.size(); ++i) {
    clients.emplace_back(client_loop, std::cref(a), std::cref(limited[i]), i * 31, timed_from, end,
                         std::ref(*totals.back()));
  }
  std::vector<double> rss;  // one sample a second, timed phase
  while (Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (Clock::now() >= timed_from) rss.push_back(rss_mib(a.server_pid));
  }
  for (auto& t : clients) t.join();
  Totals all;
  for (size_t l = 0; l < loads.size(); ++l) {
    Totals& t = *totals[l];
    all.latencies.insert(all.latencies.end(), t.latencies.begin(), t.latencies.end());
    all.requests += t.requests;
    all.sentences += t.sentences;
    all.failed += t.failed;
    if (all.first_failure.empty()) all.first_failure = t.first_failure;
    if (loads.size() > 1) {
      print_row(std::to_string(connections) + " (" + loads[l].source + "->" + loads[l].target + ")", t, a.seconds);
      std::printf("\n");
    }
  }
  print_row(std::to_string(connections) + (loads.size() > 1 ? " (all)" : ""), all, a.seconds);
  if (!rss.empty() && a.server_pid > 0) {
    const size_t third = std::max<size_t>(1, rss.size() / 3);
    const double early = *std::max_element(rss.begin(), rss.begin() + third);
    const double late = *std::max_element(rss.end() - third, rss.end());
    std::printf(" %.0f | %.0f |", early, late);
  }
  std::printf("\n");
  if (!all.first_failure.empty()) std::printf("first failure: %s\n", all.first_failure.c_str());
  if (!limited.empty()) {
    Totals& t = *totals.back();
    std::printf("limited key: %lld answered (%.1f a minute), %lld refused with 429, %lld failed otherwise\n",
                static_cast<long long>(t.requests), t.requests / a.seconds * 60, static_cast<long long>(t.refused),
                static_cast<long long>(t.failed));
  }
  if (rss.size() >= 120 && a.server_pid > 0) print_rss_by_minute(connections, rss);
  std::fflush(stdout);
}

// One load per pair, each with the sentences of its source language.
std::vector<Load> make_loads(const Args& a, std::map<std::string, std::vector<std::string>>& inputs) {
  std::vector<std::string> pairs = a.pairs;
  if (pairs.empty()) pairs.push_back(a.source + "-" + a.target);
  for (const auto& spec : a.input_of) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) throw nmt::UsageError("--input-of takes LANG=FILE (got " + spec + ").");
    inputs[spec.substr(0, eq)] = nmt::bench::read_sentences(spec.substr(eq + 1));
  }
  std::vector<Load> loads;
  for (const auto& pair : pairs) {
    const size_t dash = pair.find('-');
    if (dash == std::string::npos) throw nmt::UsageError("--pairs takes SOURCE-TARGET codes (got " + pair + ").");
    Load l{pair.substr(0, dash), pair.substr(dash + 1), a.api_key, nullptr, false};
    if (!inputs.count(l.source)) {
      if (a.input.empty()) throw nmt::UsageError("No sentences for " + l.source + ": give --input-of " + l.source + "=FILE.");
      inputs[l.source] = nmt::bench::read_sentences(a.input);
    }
    l.lines = &inputs[l.source];
    loads.push_back(l);
  }
  return loads;
}

int bench_main(int argc, char** argv) {
  CLI::App app{"Load test of translator --serve"};
  Args a;
  app.add_option("--host", a.host)->capture_default_str();
  app.add_option("--port", a.port)->capture_default_str();
  app.add_option("--input", a.input, "Sentences, one a line (for every source without --input-of)");
  app.add_option("--pairs", a.pairs, "Language pairs SOURCE-TARGET the connections are spread over")->delimiter(',');
  app.add_option("--input-of", a.input_of, "LANG=FILE: the sentences of a source language")->delimiter(',');
  app.add_option("--api-key", a.api_key, "Key the clients send");
  app.add_option("--limited-key", a.limited_key, "Key with a per-minute limit, for --limited-clients more clients");
  app.add_option("--limited-clients", a.limited_clients)->capture_default_str();
  app.add_option("--connections", a.connections, "Concurrent connections per level")->delimiter(',');
  app.add_option("--seconds", a.seconds, "Timed seconds per level")->capture_default_str();
  app.add_option("--warmup-seconds", a.warmup_seconds, "Untimed seconds before each level")->capture_default_str();
  app.add_option("--sentences-per-request", a.sentences_per_request)->capture_default_str();
  app.add_option("--server-pid", a.server_pid, "Sample the server's resident memory");
  app.add_option("--source", a.source)->capture_default_str();
  app.add_option("--target", a.target)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::map<std::string, std::vector<std::string>> inputs;
  const auto loads = make_loads(a, inputs);
  std::vector<Load> limited;
  for (int i = 0; i < a.limited_clients; ++i) limited.push_back({loads[0].source, loads[0].target, a.limited_key, loads[0].lines, true});
  std::printf("%zu pair(s), %d sentence(s) per request, %.0f s timed after %.0f s warm-up per level\n\n", loads.size(),
              a.sentences_per_request, a.seconds, a.warmup_seconds);
  std::printf("| connections | requests/s | sentences/s | p50 ms | p99 ms | failed |%s\n",
              a.server_pid > 0 ? " RSS MiB, first third | RSS MiB, last third |" : "");
  std::printf("|---|---|---|---|---|---|%s\n", a.server_pid > 0 ? "---|---|" : "");
  for (int n : a.connections) run_level(a, loads, limited, n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nmt::cli::run_main("serve_bench", [&] { return bench_main(argc, argv); });
}
