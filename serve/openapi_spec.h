// GET /spec: a Swagger 2.0 description of every route this server answers,
// in the shape LibreTranslate's /spec has (basePath, definitions, info,
// paths, swagger; form parameters with a nested schema; errors as
// {"error": ...}), so that tools reading LibreTranslate's find the same
// places; our own routes (OpenNMT-py's, /ready, /metrics, /download_file)
// are described in the same way.
#pragma once

#include <nlohmann/json.hpp>

namespace nmt::serve {

nlohmann::json openapi_spec();

}  // namespace nmt::serve
