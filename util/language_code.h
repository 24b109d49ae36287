// Language codes as this product takes them ("de", "pt-BR") and their names.
#pragma once

#include <string>

namespace nmt {

// 2 or 3 lower-case letters (ISO 639-1/-3), optionally followed by '-' or '_'
// and a region or script of 2-4 letters or digits ("pt-BR", "zh_Hant").
bool is_language_code(const std::string& code);

// The language of a code without its region or script, in lower case
// ("en-US" -> "en", "DE" -> "de"; "" stays "").
std::string primary_language(std::string code);

// An English name for a code ("de" -> "German", "pt-BR" -> "Portuguese"); the
// code itself when the table does not know it.
std::string language_name(const std::string& code);

}  // namespace nmt
