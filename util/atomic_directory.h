// A directory written whole or not at all: filled under a temporary name
// beside its target, then renamed to it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace nmt {

// Calls `fill` on a fresh temporary directory beside out_dir, then renames it
// to out_dir. Whatever `fill` or the rename throws removes the temporary: a
// filesystem error becomes nmt::Error (exit 1) "Cannot write WHAT to
// OUT_DIR: ...", anything else is rethrown. The caller refuses an existing
// out_dir first, in its own words.
void write_directory_atomically(const std::string& out_dir, const std::string& what,
                                const std::function<void(const std::filesystem::path&)>& fill);

}  // namespace nmt
