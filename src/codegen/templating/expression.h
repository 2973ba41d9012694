// Expressions of the card template language (template.h): parsing into a small tree and
// evaluation against a context.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/templating/template.h"

namespace kb::codegen::templating {

struct Expression {
  enum class Kind { literal, name, attribute, index, logical_not, logical_and, logical_or, equal, not_equal, filter, list };
  Kind kind = Kind::literal;
  Value literal;
  std::string name;  // variable, attribute or filter name
  std::vector<Expression> children;  // operands; for filter: [subject, args...]
};

// Parses a whole expression; errors name the offending text.
util::Result<Expression> parse_expression(std::string_view text);

// Where an expression is evaluated, for the error of an undefined name in strict mode.
struct Evaluation {
  const std::vector<const Context*>* scopes = nullptr;  // searched innermost (last) first
  Undefined undefined = Undefined::lenient;
  std::string_view template_name;
  int line = 0;
};

util::Result<Value> evaluate(const Expression& expression, const Evaluation& evaluation);

}  // namespace kb::codegen::templating
