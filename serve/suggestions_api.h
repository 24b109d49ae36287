// POST /suggest with a store (--suggestions DB): LibreTranslate's fields q
// (the source), s (the suggested translation), source and target, from JSON
// or form data; stored durably (memory/suggestion_store.h) and answered
// with LibreTranslate's {"success": true}. The store answers /translate from
// then on (decode::Translator::set_memory).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memory/suggestion_store.h"
#include "serve/text_translation.h"

namespace nmt::serve {

// An HttpError 400 naming the field when one is missing, empty, not a
// string, or over `limits`; 507 when the store cannot be written (a full
// disk): the server goes on, nothing half-stored.
nlohmann::json store_suggestion(memory::SuggestionStore& store, const nlohmann::json& fields,
                                const std::string& api_key, const RequestLimits& limits);

}  // namespace nmt::serve
