// Lower case as scorers compare text case-insensitively: Unicode's full
// lower-case mapping without a locale (ICU's root locale), as Python's
// str.lower() (sacreBLEU's -lc) and Perl's lc (multi-bleu.perl -lc) do it.
#pragma once

#include <string>

namespace nmt::eval {

std::string lowercase(const std::string& utf8);

}  // namespace nmt::eval
