#pragma once
// An environment variable set for a scope, restored after it.
#include <cstdlib>
#include <optional>
#include <string>

namespace optbench::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* key, const std::string& value) : key_(key) {
    if (const char* old = std::getenv(key)) was_ = old;
    ::setenv(key, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (was_)
      ::setenv(key_, was_->c_str(), 1);
    else
      ::unsetenv(key_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* key_;
  std::optional<std::string> was_;
};

}  // namespace optbench::testing
