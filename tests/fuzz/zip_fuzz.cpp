// The zip reader under every document format on arbitrary bytes (damaged,
// truncated, hostile archives): our error or a document, and a document
// rebuilt from an identity translation is a readable archive again.
#include <cstdlib>
#include <string>
#include <vector>

#include "document/document.h"
#include "document/zip_archive.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  nmt::document::DocumentLimits limits;  // small enough that a fuzzed archive cannot take the memory
  limits.archive.max_entries = 64;
  limits.archive.max_entry_bytes = 1 << 20;
  limits.archive.max_total_bytes = 4 << 20;
  for (const auto format : {nmt::document::DocumentFormat::kDocx, nmt::document::DocumentFormat::kPptx,
                            nmt::document::DocumentFormat::kOdt, nmt::document::DocumentFormat::kEpub}) {
    nmt::fuzz::expect_only_our_errors([&] {
      auto doc = nmt::document::open_document(format, bytes, "fuzz", limits);
      const std::string out = doc->render(doc->texts(), "de");
      nmt::document::ZipArchive again(out, "rebuilt", limits.archive);  // throws (a finding) if unreadable
      if (again.names().empty() && !doc->texts().empty()) std::abort();
    });
  }
  return 0;
}
