// The one template engine of code generation: a small Jinja subset that renders our own
// templates (templates/project/, templates/init/) and the users' CARD.md templates
// (docs/build-output.md, which must stay Jinja-compatible). `{{ expr }}`,
// `{% if %}/{% elif %}/{% else %}/{% endif %}`, `{% for x in list %}/{% endfor %}` (with
// loop.index/first/last), `{% raw %}`, `{# comments #}`, `-` whitespace control, and
// trim_blocks (the newline after a block tag is dropped). Expressions: names, attribute and
// index access, string/integer literals, `not`/`and`/`or`, `==`/`!=`, filters `length`,
// `join(sep)`, `lower`, `upper`, `default(v)`, `first`, `last`, `trim`.
//
// For template authors: a file that must contain a literal `{{`, `{%` or `{#` (a C++
// brace-init, a Python f-string with doubled braces, the CARD.md template of the init scaffold)
// puts that text inside `{% raw %}...{% endraw %}`; single braces need nothing.
//
// Why hand-rolled: there is no C++ Jinja implementation packaged in Debian, and generation
// needs only this subset. The parser is bounded (nesting and expression depth limits, no
// unbounded loops) so arbitrary input yields output or an error, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::codegen::templating {

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

// What an undefined name (or a missing attribute) is: lenient, as minijinja's default, for the
// users' cards; an error for our own templates, so that a typo fails the tests instead of
// leaking into a generated file.
enum class Undefined { lenient, strict };

// Renders `source` with `context`; `name` is used in error messages ("<name>:<line>: ...").
util::Result<std::string> render_template(std::string_view source, const Context& context, std::string_view name,
                                          Undefined undefined = Undefined::lenient);

// A context of plain strings, the usual shape of our own templates' contexts.
Context string_context(const std::map<std::string, std::string>& values);

}  // namespace kb::codegen::templating
