#include "cli/model_interop.h"

#include <iostream>

#include "interop/argos_package.h"
#include "interop/ct2_export.h"
#include "interop/marian_export.h"
#include "interop/model_loader.h"
#include "util/error.h"

namespace nmt::cli {

int import_model_command(const std::string& path, const std::string& out_dir) {
  const auto imported = interop::import_model(path);
  interop::write_native_model_dir(imported, out_dir);
  std::cerr << "translator: wrote " << out_dir << " from the " << imported.format << " model " << path << " ("
            << imported.model.n_layers << " layers, d_model " << imported.model.d_model << ").\n";
  return 0;
}

int export_model_command(const storage::LoadedModel& loaded, const std::string& format, const std::string& out) {
  if (format == "ct2") {
    interop::export_ct2(loaded, out);
    std::cerr << "translator: wrote the CTranslate2 model " << out << ".\n";
    return 0;
  }
  if (format == "argos") {
    interop::export_argos(loaded, out);
    std::cerr << "translator: wrote the Argos Translate package " << out << ".\n";
    return 0;
  }
  if (format == "marian") {
    interop::export_marian(loaded, out);
    std::cerr << "translator: wrote the Marian model " << out << ".\n";
    return 0;
  }
  throw UsageError("--export takes ct2, argos or marian (got " + format + ").");
}

}  // namespace nmt::cli
