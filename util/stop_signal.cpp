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

}  // namespace nmt
