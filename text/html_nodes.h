// How text/html_document.cpp reads gumbo's tree: which elements are text
// to translate, which are left alone, which inline elements a run of text
// can carry, and where the parser's repairs make a node's place in the source
// untrustworthy. Internal to text/.
#pragma once

#include <gumbo.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/span.h"

namespace nmt::text::html_nodes {

enum class Kind { kSkip, kInline, kBlock };

std::vector<const GumboNode*> children_of(const GumboNode* node);

// The element's own end tag in the source; empty where it has none, or where
// another end tag closed it (a <b> left open until </p> points at that one).
Span own_end_tag(const GumboNode* node, const std::string& source);

// Per element under `root`: whether a run can carry it as an inline element.
std::unordered_map<const GumboNode*, bool> carried_inline_elements(const GumboNode* root, const std::string& source);

// A skipped element that stays in its run as one piece kept as it is (a
// word of the translation, placed by alignment): inline code (code, kbd,
// samp, var) and inline elements marked translate="no" or class="notranslate",
// spelled in the source with their own end tags.
bool kept_inline(const GumboNode* node, const std::string& source);

// Skipped (code, scripts, translate="no" ...), inline (carried) or a block.
Kind kind_of(const GumboNode* node, const std::unordered_map<const GumboNode*, bool>& carried);

size_t offset_in(const std::string& source, const char* p);

// Whether source text holds what can only be a tag; and whether a text node is a <title>'s.
bool holds_a_tag(std::string_view original);
bool in_title(const GumboNode* text);

// Where every tag and comment under `root` starts in the source, sorted.
std::vector<size_t> markup_starts(const GumboNode* root, const std::string& source);

}  // namespace nmt::text::html_nodes
