// The one error type of the core: an Error value (kind, message, causes, hints) carried by
// Result<T>. Exceptions are used only at the boundaries (CLI main, Python layer).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kb::util {

enum class ErrorKind {
  generic,
  usage,        // bad command line
  config,       // build.toml / project content
  io,           // filesystem
  process,      // a child process failed
  network,      // HTTP transport
  not_found,    // repo, revision, file or variant missing
  permission,   // auth / access
  integrity,    // digest or hash mismatch
  invalid,      // malformed input from a peer: a request body, a name, a listing from a Hub
};

struct Error {
  ErrorKind kind = ErrorKind::generic;
  std::string message;
  std::vector<std::string> causes;  // outermost first, printed as "Caused by: ..."
  std::vector<std::string> hints;   // printed as "hint: ..."
  int status = 0;                   // HTTP status, where the error is a peer's HTTP answer
  std::string code;                 // the peer's machine-readable error code (Hub: X-Error-Code)

  Error() = default;
  Error(ErrorKind k, std::string msg) : kind(k), message(std::move(msg)) {}
  explicit Error(std::string msg) : message(std::move(msg)) {}

  Error&& with_cause(std::string cause) && {
    causes.push_back(std::move(cause));
    return std::move(*this);
  }
  Error&& with_hint(std::string hint) && {
    hints.push_back(std::move(hint));
    return std::move(*this);
  }
  // Wraps this error under a new top-level message; the old message becomes the first cause.
  Error context(std::string outer) const {
    Error e(kind, std::move(outer));
    e.status = status;
    e.code = code;
    e.causes.push_back(message);
    e.causes.insert(e.causes.end(), causes.begin(), causes.end());
    e.hints = hints;
    return e;
  }
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : data_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(data_); }
  const T& value() const& { assert(ok()); return std::get<0>(data_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { assert(!ok()); return std::get<1>(data_); }
  Error&& error() && { assert(!ok()); return std::get<1>(std::move(data_)); }

 private:
  std::variant<T, Error> data_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { assert(failed_); return error_; }
  Error&& error() && { assert(failed_); return std::move(error_); }

 private:
  Error error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace kb::util

// Propagates an error from an expression returning Result<...>.
#define KB_TRY(expr)                                  \
  do {                                                \
    auto kb_try_result_ = (expr);                     \
    if (!kb_try_result_) return std::move(kb_try_result_).error(); \
  } while (0)

// Assigns the value of an expression returning Result<T>, or returns its error:
//   KB_TRY_ASSIGN(auto text, util::read_file(path));   // text is the std::string
//   KB_TRY_ASSIGN(config.name, parse_name(table));       // an existing variable or member
// It expands to statements (a declaration in the enclosing scope), so it cannot be the body of an
// unbraced if. The target may not contain a top-level comma (no structured bindings); the
// expression may (it is __VA_ARGS__).
#define KB_TRY_ASSIGN(target, ...) \
  KB_TRY_ASSIGN_IMPL_(KB_TRY_CONCAT_(kb_try_assign_, __LINE__), target, __VA_ARGS__)
#define KB_TRY_ASSIGN_IMPL_(result, target, ...)             \
  auto result = (__VA_ARGS__);                               \
  if (!result) return std::move(result).error();             \
  target = std::move(result).value()
#define KB_TRY_CONCAT_(a, b) KB_TRY_CONCAT_INNER_(a, b)
#define KB_TRY_CONCAT_INNER_(a, b) a##b
