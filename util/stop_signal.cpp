#include "util/stop_signal.h"

#include <csignal>

namespace nmt {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_signal != 0) std::signal(sig, SIG_DFL);
  g_signal = sig;
}

}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool stop_requested() { return g_signal != 0; }
int stop_signal_number() { return g_signal; }
void reset_stop_request() { g_signal = 0; }

namespace {
volatile std::sig_atomic_t g_reload = 0;
extern "C" void on_reload_signal(int) { g_reload = 1; }
}  // namespace

void install_reload_signal_handler() {
  struct sigaction action {};
  action.sa_handler = on_reload_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGHUP, &action, nullptr);
}

bool take_reload_request() {
  if (g_reload == 0) return false;
  g_reload = 0;
  return true;
}

}  // namespace nmt
