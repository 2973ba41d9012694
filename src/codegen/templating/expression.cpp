// Expression tokenizer, recursive-descent parser (depth-limited) and evaluator.
#include "codegen/templating/expression.h"

#include <cctype>

#include "util/strings.h"

namespace kb::codegen::templating {

namespace {

constexpr int kMaxDepth = 64;

struct Token {
  enum class Kind { identifier, string, integer, symbol, end };
  Kind kind = Kind::end;
  std::string text;
};

util::Result<std::vector<Token>> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      tokens.push_back({Token::Kind::identifier, std::string(text.substr(start, i - start))});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      if (i - start > 18) return util::Error(util::ErrorKind::config, "integer literal too large");
      tokens.push_back({Token::Kind::integer, std::string(text.substr(start, i - start))});
    } else if (c == '"' || c == '\'') {
      std::string value;
      ++i;
      while (i < text.size() && text[i] != c) {
        if (text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          char e = text[i];
          value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else {
          value += text[i];
        }
        ++i;
      }
      if (i >= text.size()) return util::Error(util::ErrorKind::config, "unterminated string literal");
      ++i;
      tokens.push_back({Token::Kind::string, value});
    } else if ((c == '=' || c == '!') && i + 1 < text.size() && text[i + 1] == '=') {
      tokens.push_back({Token::Kind::symbol, std::string(text.substr(i, 2))});
      i += 2;
    } else if (std::string_view("()[].,|").find(c) != std::string_view::npos) {
      tokens.push_back({Token::Kind::symbol, std::string(1, c)});
      ++i;
    } else {
      return util::Error(util::ErrorKind::config, std::string("unexpected character `") + c + "`");
    }
  }
  tokens.push_back({Token::Kind::end, ""});
  return tokens;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  util::Result<Expression> parse_all() {
    auto expression = parse_or(0);
    if (!expression) return expression;
    if (peek().kind != Token::Kind::end) return fail("unexpected `" + peek().text + "`");
    return expression;
  }

 private:
  const Token& peek() const { return tokens_[position_]; }
  const Token& next() { return tokens_[position_ < tokens_.size() - 1 ? position_++ : position_]; }
  bool accept(const std::string& text) {
    if ((peek().kind == Token::Kind::symbol || peek().kind == Token::Kind::identifier) && peek().text == text) {
      ++position_;
      return true;
    }
    return false;
  }
  static util::Error fail(const std::string& message) { return util::Error(util::ErrorKind::config, message); }

  util::Result<Expression> binary(int depth, Expression::Kind kind, const std::string& op,
                                  util::Result<Expression> (Parser::*operand)(int)) {
    auto left = (this->*operand)(depth + 1);
    if (!left) return left;
    Expression result = std::move(*left);
    while (accept(op)) {
      auto right = (this->*operand)(depth + 1);
      if (!right) return right;
      Expression combined;
      combined.kind = kind;
      combined.children = {std::move(result), std::move(*right)};
      result = std::move(combined);
    }
    return result;
  }

  util::Result<Expression> parse_or(int depth) {
    if (depth > kMaxDepth) return fail("expression nested too deeply");
    return binary(depth, Expression::Kind::logical_or, "or", &Parser::parse_and);
  }
  util::Result<Expression> parse_and(int depth) {
    return binary(depth, Expression::Kind::logical_and, "and", &Parser::parse_not);
  }
  util::Result<Expression> parse_not(int depth) {
    if (depth > kMaxDepth) return fail("expression nested too deeply");
    if (accept("not")) {
      auto operand = parse_not(depth + 1);
      if (!operand) return operand;
      Expression e;
      e.kind = Expression::Kind::logical_not;
      e.children.push_back(std::move(*operand));
      return e;
    }
    return parse_comparison(depth + 1);
  }
  util::Result<Expression> parse_comparison(int depth) {
    auto left = parse_filtered(depth + 1);
    if (!left) return left;
    for (auto [op, kind] : {std::pair{"==", Expression::Kind::equal}, std::pair{"!=", Expression::Kind::not_equal}}) {
      if (accept(op)) {
        auto right = parse_filtered(depth + 1);
        if (!right) return right;
        Expression e;
        e.kind = kind;
        e.children = {std::move(*left), std::move(*right)};
        return e;
      }
    }
    return left;
  }
  util::Result<Expression> parse_filtered(int depth) {
    auto subject = parse_postfix(depth + 1);
    if (!subject) return subject;
    Expression result = std::move(*subject);
    while (accept("|")) {
      if (peek().kind != Token::Kind::identifier) return fail("expected a filter name after `|`");
      Expression e;
      e.kind = Expression::Kind::filter;
      e.name = next().text;
      e.children.push_back(std::move(result));
      if (accept("(")) {
        while (!accept(")")) {
          auto argument = parse_or(depth + 1);
          if (!argument) return argument;
          e.children.push_back(std::move(*argument));
          if (!accept(",") && peek().text != ")") return fail("expected `,` or `)` in filter arguments");
          if (peek().kind == Token::Kind::end) return fail("unterminated filter arguments");
        }
      }
      result = std::move(e);
    }
    return result;
  }
  util::Result<Expression> parse_postfix(int depth) {
    auto primary = parse_primary(depth + 1);
    if (!primary) return primary;
    Expression result = std::move(*primary);
    for (;;) {
      if (accept(".")) {
        if (peek().kind != Token::Kind::identifier && peek().kind != Token::Kind::integer) return fail("expected an attribute name after `.`");
        Expression e;
        e.kind = Expression::Kind::attribute;
        e.name = next().text;
        e.children.push_back(std::move(result));
        result = std::move(e);
      } else if (accept("[")) {
        auto index = parse_or(depth + 1);
        if (!index) return index;
        if (!accept("]")) return fail("expected `]`");
        Expression e;
        e.kind = Expression::Kind::index;
        e.children = {std::move(result), std::move(*index)};
        result = std::move(e);
      } else {
        return result;
      }
    }
  }
  util::Result<Expression> parse_primary(int depth) {
    if (depth > kMaxDepth) return fail("expression nested too deeply");
    const Token& token = next();
    Expression e;
    switch (token.kind) {
      case Token::Kind::string: e.literal = Value::of(token.text); return e;
      case Token::Kind::integer: e.literal = Value::of(static_cast<int64_t>(std::stoll(token.text))); return e;
      case Token::Kind::identifier:
        if (token.text == "true" || token.text == "True") { e.literal = Value::of(true); return e; }
        if (token.text == "false" || token.text == "False") { e.literal = Value::of(false); return e; }
        if (token.text == "none" || token.text == "None") return e;
        e.kind = Expression::Kind::name;
        e.name = token.text;
        return e;
      case Token::Kind::symbol:
        if (token.text == "(") {
          auto inner = parse_or(depth + 1);
          if (!inner) return inner;
          if (!accept(")")) return fail("expected `)`");
          return inner;
        }
        if (token.text == "[") {
          e.kind = Expression::Kind::list;
          while (!accept("]")) {
            auto item = parse_or(depth + 1);
            if (!item) return item;
            e.children.push_back(std::move(*item));
            if (!accept(",") && peek().text != "]") return fail("expected `,` or `]` in list");
          }
          return e;
        }
        return fail("unexpected `" + token.text + "`");
      case Token::Kind::end: return fail("unexpected end of expression");
    }
    return fail("unexpected token");
  }

  std::vector<Token> tokens_;
  size_t position_ = 0;
};

util::Result<Value> apply_filter(const std::string& name, const Value& subject, const std::vector<Value>& args) {
  if (name == "length") {
    if (subject.kind == Value::Kind::list) return Value::of(static_cast<int64_t>(subject.list.size()));
    return Value::of(static_cast<int64_t>(subject.str().size()));
  }
  if (name == "join") {
    std::string separator = args.empty() ? "" : args[0].str();
    std::vector<std::string> parts;
    for (const auto& item : subject.list) parts.push_back(item.str());
    return Value::of(util::join(parts, separator));
  }
  if (name == "lower") return Value::of(util::to_lower(subject.str()));
  if (name == "upper") {
    std::string text = subject.str();
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return Value::of(text);
  }
  if (name == "trim") return Value::of(std::string(util::trim(subject.str())));
  if (name == "default") return subject.kind == Value::Kind::none ? (args.empty() ? Value::of(std::string()) : args[0]) : subject;
  if (name == "first" || name == "last") {
    if (subject.kind != Value::Kind::list || subject.list.empty()) return Value();
    return name == "first" ? subject.list.front() : subject.list.back();
  }
  return util::Error(util::ErrorKind::config, "unknown filter `" + name + "`");
}

util::Error undefined_error(const Evaluation& evaluation, const std::string& what) {
  return util::Error(util::ErrorKind::config, std::string(evaluation.template_name) + ":" +
                                                  std::to_string(evaluation.line) + ": undefined " + what);
}

}  // namespace

util::Result<Expression> parse_expression(std::string_view text) {
  KB_TRY_ASSIGN(auto tokens, tokenize(text));
  return Parser(std::move(tokens)).parse_all();
}

util::Result<Value> evaluate(const Expression& e, const Evaluation& evaluation) {
  auto eval = [&](size_t i) { return evaluate(e.children[i], evaluation); };
  const bool strict = evaluation.undefined == Undefined::strict;
  switch (e.kind) {
    case Expression::Kind::literal: return e.literal;
    case Expression::Kind::name:
      for (auto it = evaluation.scopes->rbegin(); it != evaluation.scopes->rend(); ++it) {
        if (auto found = (*it)->find(e.name); found != (*it)->end()) return found->second;
      }
      if (strict) return undefined_error(evaluation, "variable `" + e.name + "`");
      return Value();  // undefined is falsy (lenient, like minijinja)
    case Expression::Kind::attribute: {
      auto subject = eval(0);
      if (!subject) return subject;
      if (auto found = subject->object.find(e.name); found != subject->object.end()) return found->second;
      if (strict) return undefined_error(evaluation, "attribute `" + e.name + "`");
      return Value();
    }
    case Expression::Kind::index: {
      auto subject = eval(0);
      auto index = eval(1);
      if (!subject) return subject;
      if (!index) return index;
      if (subject->kind == Value::Kind::list && index->kind == Value::Kind::integer) {
        int64_t i = index->integer < 0 ? index->integer + static_cast<int64_t>(subject->list.size()) : index->integer;
        if (i >= 0 && i < static_cast<int64_t>(subject->list.size())) return subject->list[static_cast<size_t>(i)];
        return Value();
      }
      if (subject->kind == Value::Kind::object && index->kind == Value::Kind::string) {
        if (auto found = subject->object.find(index->string); found != subject->object.end()) return found->second;
      }
      return Value();
    }
    case Expression::Kind::logical_not: {
      auto operand = eval(0);
      if (!operand) return operand;
      return Value::of(!operand->truthy());
    }
    case Expression::Kind::logical_and:
    case Expression::Kind::logical_or: {
      auto left = eval(0);
      if (!left) return left;
      bool is_and = e.kind == Expression::Kind::logical_and;
      if (left->truthy() != is_and) return left;
      return eval(1);
    }
    case Expression::Kind::equal:
    case Expression::Kind::not_equal: {
      auto left = eval(0);
      auto right = eval(1);
      if (!left) return left;
      if (!right) return right;
      bool same = *left == *right;
      return Value::of(e.kind == Expression::Kind::equal ? same : !same);
    }
    case Expression::Kind::filter: {
      auto subject = eval(0);
      if (!subject) return subject;
      std::vector<Value> args;
      for (size_t i = 1; i < e.children.size(); ++i) {
        auto arg = eval(i);
        if (!arg) return arg;
        args.push_back(std::move(*arg));
      }
      return apply_filter(e.name, *subject, args);
    }
    case Expression::Kind::list: {
      std::vector<Value> items;
      for (size_t i = 0; i < e.children.size(); ++i) {
        auto item = eval(i);
        if (!item) return item;
        items.push_back(std::move(*item));
      }
      return Value::of(std::move(items));
    }
  }
  return Value();
}

}  // namespace kb::codegen::templating
