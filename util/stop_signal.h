// SIGINT/SIGTERM ask long work to stop at the next safe point (the trainer
// saves a checkpoint there) instead of dying mid-write.
#pragma once

namespace nmt {

// Installs the handlers (idempotent). A second signal of the same kind while a
// stop is pending restores the default action, so a user can still force it.
void install_stop_signal_handlers();
bool stop_requested();
int stop_signal_number();  // 0 when none arrived
void reset_stop_request();  // for tests

// SIGHUP asks a server to reload its models (translator --serve).
void install_reload_signal_handler();
bool take_reload_request();  // whether one arrived since the last call

}  // namespace nmt
