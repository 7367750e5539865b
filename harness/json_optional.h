#pragma once
// An optional figure in the results' JSON: null where it has none (the schema's
// convention), and read back the same way.
#include <nlohmann/json.hpp>
#include <optional>

namespace optbench {

template <class T>
nlohmann::json or_null(const std::optional<T>& x) {
  return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
}

// None where the key is absent or null.
template <class T>
std::optional<T> optional_at(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

}  // namespace optbench
