#include "interop/argos_package.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "data/language_pair.h"
#include "document/zip_archive.h"
#include "interop/ct2_export.h"
#include "interop/ct2_directory.h"
#include "interop/ct2_transformer.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/language_code.h"

namespace nmt::interop {
namespace fs = std::filesystem;
namespace {

// A folder under the temporary directory, removed with its contents when the
// last holder lets go.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "nmt_package_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw Error("Cannot make a scratch folder under " + pattern + ".", kExitOther);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The files of a package, relative to its folder: what is unpacked from a
// .argosmodel (anything else in it is left alone).
const char* const kPackageFiles[] = {"metadata.json",
                                     "sentencepiece.model",
                                     "bpe.model",
                                     "model/model.bin",
                                     "model/config.json",
                                     "model/shared_vocabulary.txt",
                                     "model/shared_vocabulary.json",
                                     "model/source_vocabulary.txt",
                                     "model/source_vocabulary.json",
                                     "model/target_vocabulary.txt",
                                     "model/target_vocabulary.json"};

// The one folder at the top of an archive's entries; every entry must lie in it.
std::string top_folder(const document::ZipArchive& zip, const std::string& path) {
  std::string top;
  for (const auto& name : zip.names()) {
    const fs::path p(name);
    bool outside = p.is_absolute() || name.find('\\') != std::string::npos;
    for (const auto& part : p) outside = outside || part == "..";
    const size_t slash = name.find('/');
    if (outside || slash == std::string::npos || slash == 0) {
      throw DataError("The Argos package " + path + " has the entry \"" + name +
                      "\" outside its one top folder; it is refused.");
    }
    const std::string first = name.substr(0, slash);
    if (!top.empty() && first != top) {
      throw DataError("The Argos package " + path + " holds more than one folder at its top (" + top + ", " + first +
                      "); a package is one folder.");
    }
    top = first;
  }
  if (top.empty()) throw DataError("The Argos package " + path + " is an empty archive.");
  return top;
}

// Unpacks the package files of a .argosmodel into dir.
void unpack(const std::string& path, const fs::path& dir) {
  document::ArchiveLimits limits;
  limits.max_entries = 100000;
  limits.max_entry_bytes = 8ll << 30;   // a model.bin of billions of weights
  limits.max_total_bytes = 16ll << 30;
  document::ZipArchive zip(read_file_bytes(path), path, limits);
  const std::string top = top_folder(zip, path);
  fs::create_directories(dir / "model");
  for (const char* file : kPackageFiles) {
    const std::string entry = top + "/" + file;
    if (zip.has(entry)) write_file_atomically((dir / file).string(), zip.read(entry));
  }
}

ArgosMetadata read_metadata(const fs::path& dir, const std::string& origin) {
  const fs::path p = dir / "metadata.json";
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw DataError("The Argos package " + origin + " has no metadata.json.");
  return parse_argos_metadata(read_file_bytes(p.string()), origin);
}

// argos-translate's search and output: beam 4, length penalty 0.2 as
// CTranslate2 divides, unknown tokens replaced by the source token the model
// attends to, and the metadata's target_prefix (a target token) before every
// translation, taken off its text.
storage::DecodingChoice argos_decoding(storage::DecodingChoice d, const ArgosMetadata& metadata) {
  d.engine = "Argos Translate";
  d.beam = 4;
  d.length_penalty = 0.2;
  d.replace_unknowns = true;
  d.target_tag = metadata.target_prefix;
  return d;
}

ImportedModel import_folder(const fs::path& dir, const std::string& origin) {
  const auto metadata = read_metadata(dir, origin);
  std::error_code ec;
  const fs::path pieces = dir / "sentencepiece.model";
  if (!fs::is_regular_file(pieces, ec)) {
    throw DataError("The Argos package " + origin + (fs::exists(dir / "bpe.model", ec)
                                                         ? " cuts its text with BPE (bpe.model), which this program does not read yet."
                                                         : " has no sentencepiece.model."));
  }
  if (!fs::is_regular_file(dir / "model" / "model.bin", ec)) {
    throw DataError("The Argos package " + origin + " has no CTranslate2 model (model/model.bin).");
  }
  ImportedModel m = import_ct2_model((dir / "model").string());
  m.origin = origin;
  m.format = "Argos Translate";
  m.src_pieces = m.tgt_pieces = pieces.string();
  m.source_lang = metadata.from_code;
  m.target_lang = metadata.to_code;
  m.decoding = argos_decoding(m.decoding, metadata);
  const std::string& tag = m.decoding.target_tag;
  if (!tag.empty() && std::find(m.tgt_tokens.begin(), m.tgt_tokens.end(), tag) == m.tgt_tokens.end()) {
    throw DataError("The metadata.json of the Argos package " + origin + " starts translations with the target_prefix \"" +
                    tag + "\", which is not a token of its target vocabulary.");
  }
  return m;
}

}  // namespace

ArgosMetadata parse_argos_metadata(const std::string& bytes, const std::string& origin) {
  const std::string named = "The metadata.json of the Argos package " + origin;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(named + " is not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw DataError(named + " is not a JSON object.");
  ArgosMetadata out;
  for (const char* key : {"from_code", "to_code"}) {
    if (!j.contains(key) || !j[key].is_string() || !is_language_code(j[key].get<std::string>())) {
      throw DataError(named + " has no language code " + key + ".");
    }
    (std::string(key) == "from_code" ? out.from_code : out.to_code) = j[key].get<std::string>();
  }
  if (j.contains("type") && j["type"] != "translate") {
    const auto& type = j["type"];
    throw DataError("The Argos package " + origin + " is of type " +
                    (type.is_string() ? "\"" + type.get<std::string>() + "\"" : std::string(type.type_name())) +
                    "; only \"translate\" packages translate.");
  }
  if (j.contains("target_prefix")) {
    if (!j["target_prefix"].is_string()) throw DataError(named + " has a target_prefix that is not a string.");
    out.target_prefix = j["target_prefix"].get<std::string>();
  }
  return out;
}

bool is_argos_package(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return fs::path(path).extension() == ".argosmodel";
  return fs::is_regular_file(fs::path(path) / "metadata.json", ec) && fs::is_directory(fs::path(path) / "model", ec);
}

ImportedModel import_argos_package(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return import_folder(path, path);
  auto scratch = std::make_shared<ScratchDir>();
  unpack(path, scratch->path());
  ImportedModel m = import_folder(scratch->path(), path);
  m.src_pieces = m.tgt_pieces = (scratch->path() / "sentencepiece.model").string();
  m.scratch = scratch;
  return m;
}

std::string default_argos_packages_dir() {
  if (const char* dir = std::getenv("ARGOS_PACKAGES_DIR"); dir && *dir) return dir;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data) {
    return (fs::path(data) / "argos-translate" / "packages").string();
  }
  const char* home = std::getenv("HOME");
  return (fs::path(home ? home : ".") / ".local" / "share" / "argos-translate" / "packages").string();
}

namespace {

// The one SentencePiece model that cuts both sides, as a package needs.
std::string joint_pieces(const storage::LoadedModel& loaded) {
  const auto& v = loaded.vocabs;
  const std::string path = v.src == v.tgt ? v.src->segmenter_path() : std::string();
  if (path.empty()) {
    throw UsageError("--export argos needs a model with one SentencePiece vocabulary for both sides (vocab.joint); "
                     "an Argos package has one sentencepiece.model.");
  }
  return path;
}

void write_package_folder(const storage::LoadedModel& loaded, const fs::path& dir, const std::string& from,
                          const std::string& to) {
  fs::create_directories(dir);
  export_ct2(loaded, (dir / "model").string());
  fs::remove(dir / "model" / "source.spm");
  fs::remove(dir / "model" / "target.spm");
  fs::copy_file(joint_pieces(loaded), dir / "sentencepiece.model");
  nlohmann::json metadata = {{"package_version", "1.0"}, {"argos_version", "1.9.0"},
                                   {"from_code", from},       {"from_name", language_name(from)},
                                   {"to_code", to},           {"to_name", language_name(to)},
                                   {"type", "translate"},     {"links", nlohmann::json::array()}};
  if (loaded.decoding && !loaded.decoding->target_tag.empty()) metadata["target_prefix"] = loaded.decoding->target_tag;
  write_file_atomically((dir / "metadata.json").string(), metadata.dump(2) + "\n");
  write_file_atomically((dir / "README.md").string(),
                        "# " + language_name(from) + " to " + language_name(to) +
                            "\n\nA Transformer exported by nmt's translator --export argos.\n");
}

std::string zip_folder(const fs::path& dir, const std::string& top) {
  document::ZipArchive zip(document::ZipArchive::empty_archive(), "the new package");
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    zip.put(top + "/" + fs::relative(entry.path(), dir).generic_string(), read_file_bytes(entry.path().string()));
  }
  return zip.bytes();
}

}  // namespace

void export_argos(const storage::LoadedModel& loaded, const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec)) throw UsageError("--out " + out + " exists; name a new package to export to.");
  const auto pair = data::language_pair(loaded.config.data);
  if (!is_language_code(pair.source) || !is_language_code(pair.target)) {
    throw UsageError("--export argos needs the model's languages (data.src_lang and data.tgt_lang, or file names "
                     "ending in their codes); this model's are unknown.");
  }
  joint_pieces(loaded);
  ScratchDir scratch;
  const std::string top = "translate-" + pair.source + "_" + pair.target + "-1_0";
  write_package_folder(loaded, scratch.path() / top, pair.source, pair.target);
  if (fs::path(out).extension() == ".argosmodel") {
    if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path(), ec);
    write_file_atomically(out, zip_folder(scratch.path() / top, top));
    return;
  }
  const fs::path tmp = out + temporary_suffix();
  if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path(), ec);
  fs::copy(scratch.path() / top, tmp, fs::copy_options::recursive, ec);
  if (!ec) fs::rename(tmp, out, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    throw Error("Cannot write the Argos package " + out + ": " + ec.message() + ".", kExitOther);
  }
}

}  // namespace nmt::interop
