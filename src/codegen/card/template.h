// A small Jinja subset for CARD.md templates (build-output.md §10): `{{ expr }}`,
// `{% if %}/{% elif %}/{% else %}/{% endif %}`, `{% for x in list %}/{% endfor %}` (with
// loop.index/first/last), `{% raw %}`, `{# comments #}`, `-` whitespace control, and
// trim_blocks (the newline after a block tag is dropped). Expressions: names, attribute and
// index access, string/integer literals, `not`/`and`/`or`, `==`/`!=`, filters `length`,
// `join(sep)`, `lower`, `upper`, `default(v)`, `first`, `last`, `trim`.
//
// Why hand-rolled: there is no C++ Jinja implementation packaged in Debian, and the cards
// need only this subset. The parser is bounded (nesting and expression depth limits, no
// unbounded loops) so arbitrary input yields output or an error, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::codegen::card {

struct Value {
  enum class Kind { none, boolean, integer, string, list, object };
  Kind kind = Kind::none;
  bool boolean = false;
  int64_t integer = 0;
  std::string string;
  std::vector<Value> list;
  std::map<std::string, Value> object;

  static Value of(bool b) { Value v; v.kind = Kind::boolean; v.boolean = b; return v; }
  static Value of(int64_t i) { Value v; v.kind = Kind::integer; v.integer = i; return v; }
  static Value of(std::string s) { Value v; v.kind = Kind::string; v.string = std::move(s); return v; }
  static Value of(std::vector<Value> l) { Value v; v.kind = Kind::list; v.list = std::move(l); return v; }
  static Value strings(const std::vector<std::string>& items);

  bool truthy() const;
  std::string str() const;  // how {{ }} prints it (none prints as "none", like minijinja)
  bool operator==(const Value& other) const;
};

using Context = std::map<std::string, Value>;

// Renders `source` with `context`; `name` is used in error messages ("<name>:<line>: ...").
util::Result<std::string> render_template(std::string_view source, const Context& context, std::string_view name);

}  // namespace kb::codegen::card
