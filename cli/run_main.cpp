#include "cli/run_main.h"

#include <iostream>

#include <CLI/CLI.hpp>
#include <c10/util/Exception.h>

#include "util/allocator.h"
#include "util/error.h"

namespace nmt::cli {

int run_main(const char* program, const std::function<int()>& body) {
  configure_allocator();
  try {
    return body();
  } catch (const CLI::ParseError& e) {
    // CLI11 reports --help as a "success" parse error.
    if (e.get_exit_code() == 0) return kExitOk;
    std::cerr << program << ": error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const Error& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const c10::Error& e) {
    std::cerr << program << ": error: " << e.what_without_backtrace() << "\n";
    return kExitOther;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: out of memory.\n";
    return kExitOther;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kExitOther;
  }
}

}  // namespace nmt::cli
