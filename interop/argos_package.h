// Argos Translate packages, what LibreTranslate runs: a folder with
// metadata.json (from_code, to_code, their names, package_version, ...), a
// CTranslate2 model in model/, and sentencepiece.model that cuts both sides'
// text; or the same folder zipped as a `.argosmodel` (one folder at the
// top). Packages live in $ARGOS_PACKAGES_DIR, else the XDG data folder's
// argos-translate/packages.
#pragma once

#include <string>

#include "interop/imported_model.h"
#include "storage/model_dir.h"

namespace nmt::interop {

// What this program reads of a package's metadata.json.
struct ArgosMetadata {
  std::string from_code, to_code;  // the pair (language codes)
  std::string target_prefix;       // a target token every translation starts with; "" for none
};

// metadata.json's bytes: a DataError naming `origin` when they are not a
// JSON object with language codes from_code and to_code, name a type other
// than "translate", or hold a target_prefix that is not a string.
ArgosMetadata parse_argos_metadata(const std::string& bytes, const std::string& origin);

// A package folder (metadata.json and model/ in it) or a `.argosmodel` file.
bool is_argos_package(const std::string& path);

// Reads a package. The model translates as argos-translate does unless told
// otherwise: beam 4, CTranslate2's length penalty 0.2 (length^alpha), no end
// token first, at most 256 tokens, unknown tokens replaced by the source
// token most attended to, and the metadata's target_prefix (a token of the
// target vocabulary) starting every translation, left out of its text; its
// pair is the metadata's. A
// `.argosmodel` is read whole into memory and its files unpacked into a
// scratch folder of their own (only the files a package has, wherever its
// entries claim to go). A DataError names the file and what is wrong: a
// metadata.json without from_code or to_code, or of another type than
// "translate", or a target_prefix the vocabulary lacks; a tokenizer other than SentencePiece; an archive that is not
// one folder, names a path outside it, or inflates beyond any model.
ImportedModel import_argos_package(const std::string& path);

// Where LibreTranslate keeps its packages: $ARGOS_PACKAGES_DIR, else
// $XDG_DATA_HOME/argos-translate/packages, else
// ~/.local/share/argos-translate/packages.
std::string default_argos_packages_dir();

// A model of ours as an Argos package (translator --export argos): a folder,
// or a `.argosmodel` file where out ends so. It needs one SentencePiece
// model for both sides (vocab.joint) and languages in its configuration.
void export_argos(const storage::LoadedModel& loaded, const std::string& out);

}  // namespace nmt::interop
