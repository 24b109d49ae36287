#include "util/language_code.h"

#include <cctype>
#include <map>

namespace nmt {
namespace {

bool all_of(const std::string& s, size_t begin, size_t end, int (*test)(int)) {
  for (size_t i = begin; i < end; ++i) {
    if (!test(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

}  // namespace

bool is_language_code(const std::string& code) {
  const size_t sep = code.find_first_of("-_");
  const size_t lang_end = sep == std::string::npos ? code.size() : sep;
  if (lang_end < 2 || lang_end > 3 || !all_of(code, 0, lang_end, ::islower)) return false;
  if (sep == std::string::npos) return true;
  const size_t rest = code.size() - sep - 1;
  return rest >= 2 && rest <= 4 && all_of(code, sep + 1, code.size(), ::isalnum);
}

std::string primary_language(std::string code) {
  code = code.substr(0, code.find_first_of("-_"));
  for (auto& c : code) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return code;
}

std::string language_name(const std::string& code) {
  static const std::map<std::string, std::string> names = {
      {"ar", "Arabic"},    {"cs", "Czech"},      {"da", "Danish"},    {"de", "German"},    {"el", "Greek"},
      {"en", "English"},   {"es", "Spanish"},    {"et", "Estonian"},  {"fi", "Finnish"},   {"fr", "French"},
      {"he", "Hebrew"},    {"hi", "Hindi"},      {"hu", "Hungarian"}, {"it", "Italian"},   {"ja", "Japanese"},
      {"ko", "Korean"},    {"lt", "Lithuanian"}, {"lv", "Latvian"},   {"nl", "Dutch"},     {"no", "Norwegian"},
      {"pl", "Polish"},    {"pt", "Portuguese"}, {"ro", "Romanian"},  {"ru", "Russian"},   {"sk", "Slovak"},
      {"sl", "Slovenian"}, {"sv", "Swedish"},    {"tr", "Turkish"},   {"uk", "Ukrainian"}, {"zh", "Chinese"}};
  const auto it = names.find(code.substr(0, code.find_first_of("-_")));
  return it == names.end() ? code : it->second;
}

}  // namespace nmt
