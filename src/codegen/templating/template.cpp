// Template lexing (tags, whitespace control, trim_blocks, raw blocks), block parsing and
// rendering (see template.h).
#include "codegen/templating/template.h"

#include <cctype>

#include "codegen/templating/expression.h"
#include "util/strings.h"

namespace kb::codegen::templating {

namespace {

constexpr int kMaxNesting = 64;
constexpr size_t kMaxOutput = 64 * 1024 * 1024;

struct Piece {
  enum class Kind { text, output, tag };
  Kind kind = Kind::text;
  std::string content;
  int line = 1;
};

int line_at(std::string_view source, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < source.size(); ++i) line += source[i] == '\n';
  return line;
}

void strip_trailing_whitespace(std::vector<Piece>& pieces) {
  if (pieces.empty() || pieces.back().kind != Piece::Kind::text) return;
  std::string& text = pieces.back().content;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
}

size_t skip_leading_whitespace(std::string_view source, size_t at) {
  while (at < source.size() && std::isspace(static_cast<unsigned char>(source[at]))) ++at;
  return at;
}

// trim_blocks: a single newline right after a block tag is dropped.
size_t skip_one_newline(std::string_view source, size_t at) {
  if (at < source.size() && source[at] == '\n') return at + 1;
  if (at + 1 < source.size() && source[at] == '\r' && source[at + 1] == '\n') return at + 2;
  return at;
}

util::Error syntax_error(std::string_view name, int line, const std::string& message) {
  return util::Error(util::ErrorKind::config, std::string(name) + ":" + std::to_string(line) + ": " + message);
}

// Finds `{% endraw %}` (with optional '-' and spaces) from `from`; returns (start, end) offsets.
std::optional<std::pair<size_t, size_t>> find_endraw(std::string_view source, size_t from) {
  for (size_t at = source.find("{%", from); at != std::string_view::npos; at = source.find("{%", at + 2)) {
    size_t close = source.find("%}", at + 2);
    if (close == std::string_view::npos) return std::nullopt;
    std::string inner(source.substr(at + 2, close - at - 2));
    std::string_view body = util::trim(inner);
    if (!body.empty() && body.front() == '-') body = util::trim(body.substr(1));
    if (!body.empty() && body.back() == '-') body = util::trim(body.substr(0, body.size() - 1));
    if (body == "endraw") return std::pair{at, close + 2};
  }
  return std::nullopt;
}

util::Result<std::vector<Piece>> lex(std::string_view source, std::string_view name) {
  std::vector<Piece> pieces;
  size_t at = 0;
  while (at < source.size()) {
    size_t open = source.find('{', at);
    while (open != std::string_view::npos && open + 1 < source.size() &&
           source[open + 1] != '{' && source[open + 1] != '%' && source[open + 1] != '#') {
      open = source.find('{', open + 1);
    }
    if (open == std::string_view::npos || open + 1 >= source.size()) {
      pieces.push_back({Piece::Kind::text, std::string(source.substr(at)), line_at(source, at)});
      break;
    }
    if (open > at) pieces.push_back({Piece::Kind::text, std::string(source.substr(at, open - at)), line_at(source, at)});
    char kind = source[open + 1];
    std::string closing = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
    size_t close = source.find(closing, open + 2);
    int line = line_at(source, open);
    if (close == std::string_view::npos) return syntax_error(name, line, "unclosed `{" + std::string(1, kind) + "`");
    std::string inner(source.substr(open + 2, close - open - 2));
    bool trim_before = !inner.empty() && inner.front() == '-';
    bool trim_after = !inner.empty() && inner.back() == '-';
    if (trim_before) inner.erase(0, 1);
    if (trim_after && !inner.empty()) inner.pop_back();
    if (trim_before) strip_trailing_whitespace(pieces);
    at = close + 2;
    if (trim_after) at = skip_leading_whitespace(source, at);
    else if (kind != '{') at = skip_one_newline(source, at);
    if (kind == '#') continue;
    std::string body(util::trim(inner));
    if (kind == '{') {
      pieces.push_back({Piece::Kind::output, body, line});
    } else if (body == "raw") {
      auto end = find_endraw(source, at);
      if (!end) return syntax_error(name, line, "`{% raw %}` without `{% endraw %}`");
      pieces.push_back({Piece::Kind::text, std::string(source.substr(at, end->first - at)), line});
      at = skip_one_newline(source, end->second);
    } else {
      pieces.push_back({Piece::Kind::tag, body, line});
    }
  }
  return pieces;
}

struct Node {
  enum class Kind { text, output, branch, loop };
  Kind kind = Kind::text;
  std::string text;
  Expression expression;                                  // output, loop subject
  std::vector<std::pair<Expression, std::vector<Node>>> branches;  // if / elif
  std::vector<Node> otherwise;                            // else
  std::string variable;                                   // loop
  std::vector<Node> body;                                 // loop
  int line = 0;                                           // output, branch (its `if`), loop
};

class BlockParser {
 public:
  BlockParser(const std::vector<Piece>& pieces, std::string_view name) : pieces_(pieces), name_(name) {}

  util::Result<std::vector<Node>> parse_document() {
    std::string terminator;
    auto nodes = parse_block(0, {}, terminator);
    if (!nodes) return nodes;
    if (!terminator.empty()) return syntax_error(name_, pieces_[position_ - 1].line, "unexpected `{% " + terminator + " %}`");
    return nodes;
  }

 private:
  static std::string keyword_of(const std::string& tag) { return tag.substr(0, tag.find_first_of(" \t\n")); }

  util::Result<Expression> expression_of(const std::string& text, int line) {
    auto parsed = parse_expression(text);
    if (!parsed) return syntax_error(name_, line, parsed.error().message + " in `" + text + "`");
    return parsed;
  }

  // Parses nodes until one of `stops` (a block keyword) or the end; `stopped_by` tells which.
  util::Result<std::vector<Node>> parse_block(int depth, const std::vector<std::string>& stops, std::string& stopped_by) {
    if (depth > kMaxNesting) return syntax_error(name_, pieces_[position_ - 1].line, "blocks nested too deeply");
    std::vector<Node> nodes;
    stopped_by.clear();
    while (position_ < pieces_.size()) {
      const Piece& piece = pieces_[position_++];
      if (piece.kind == Piece::Kind::text) {
        Node node;
        node.text = piece.content;
        nodes.push_back(std::move(node));
        continue;
      }
      if (piece.kind == Piece::Kind::output) {
        KB_TRY_ASSIGN(auto expression, expression_of(piece.content, piece.line));
        Node node;
        node.kind = Node::Kind::output;
        node.line = piece.line;
        node.expression = std::move(expression);
        nodes.push_back(std::move(node));
        continue;
      }
      std::string keyword = keyword_of(piece.content);
      std::string rest(util::trim(std::string_view(piece.content).substr(keyword.size())));
      for (const auto& stop : stops) {
        if (keyword == stop) {
          stopped_by = keyword;
          stopped_rest_ = rest;
          return nodes;
        }
      }
      if (keyword == "if") {
        KB_TRY_ASSIGN(auto node, parse_if(depth, rest, piece.line));
        nodes.push_back(std::move(node));
      } else if (keyword == "for") {
        KB_TRY_ASSIGN(auto node, parse_for(depth, rest, piece.line));
        nodes.push_back(std::move(node));
      } else if (keyword == "endif" || keyword == "endfor" || keyword == "elif" || keyword == "else") {
        stopped_by = keyword;
        return nodes;
      } else {
        return syntax_error(name_, piece.line, "unknown tag `{% " + keyword + " %}`");
      }
    }
    return nodes;
  }

  util::Result<Node> parse_if(int depth, const std::string& condition_text, int line) {
    Node node;
    node.kind = Node::Kind::branch;
    node.line = line;
    std::string condition = condition_text;
    for (;;) {
      KB_TRY_ASSIGN(auto condition_expression, expression_of(condition, line));
      std::string stopped;
      auto body = parse_block(depth + 1, {"elif", "else", "endif"}, stopped);
      if (!body) return std::move(body).error();
      node.branches.emplace_back(std::move(condition_expression), std::move(*body));
      if (stopped == "elif") {
        condition = stopped_rest_;
        continue;
      }
      if (stopped == "else") {
        auto otherwise = parse_block(depth + 1, {"endif"}, stopped);
        if (!otherwise) return std::move(otherwise).error();
        node.otherwise = std::move(*otherwise);
      }
      if (stopped != "endif") return syntax_error(name_, line, "`{% if %}` without `{% endif %}`");
      return node;
    }
  }

  util::Result<Node> parse_for(int depth, const std::string& header, int line) {
    auto parts = util::split(header, ' ');
    std::vector<std::string> words;
    for (auto& p : parts) {
      if (!p.empty()) words.push_back(p);
    }
    if (words.size() < 3 || words[1] != "in") return syntax_error(name_, line, "expected `{% for <name> in <expr> %}`");
    Node node;
    node.kind = Node::Kind::loop;
    node.line = line;
    node.variable = words[0];
    std::string subject = header.substr(header.find(" in ") + 4);
    KB_TRY_ASSIGN(auto expression, expression_of(subject, line));
    node.expression = std::move(expression);
    std::string stopped;
    auto body = parse_block(depth + 1, {"endfor"}, stopped);
    if (!body) return std::move(body).error();
    if (stopped != "endfor") return syntax_error(name_, line, "`{% for %}` without `{% endfor %}`");
    node.body = std::move(*body);
    return node;
  }

  const std::vector<Piece>& pieces_;
  std::string_view name_;
  size_t position_ = 0;
  std::string stopped_rest_;
};

struct Renderer {
  std::string_view name;
  Undefined undefined = Undefined::lenient;
  std::vector<const Context*> scopes;

  util::Result<Value> evaluate_at(const Expression& expression, int line) const {
    return evaluate(expression, Evaluation{&scopes, undefined, name, line});
  }

  util::Status render_nodes(const std::vector<Node>& nodes, std::string& out);
};

util::Status Renderer::render_nodes(const std::vector<Node>& nodes, std::string& out) {
  for (const auto& node : nodes) {
    if (out.size() > kMaxOutput) return util::Error(util::ErrorKind::config, "template output too large");
    switch (node.kind) {
      case Node::Kind::text: out += node.text; break;
      case Node::Kind::output: {
        KB_TRY_ASSIGN(auto value, evaluate_at(node.expression, node.line));
        out += value.str();
        break;
      }
      case Node::Kind::branch: {
        const std::vector<Node>* chosen = &node.otherwise;
        for (const auto& [condition, body] : node.branches) {
          KB_TRY_ASSIGN(auto value, evaluate_at(condition, node.line));
          if (value.truthy()) {
            chosen = &body;
            break;
          }
        }
        KB_TRY(render_nodes(*chosen, out));
        break;
      }
      case Node::Kind::loop: {
        KB_TRY_ASSIGN(auto subject, evaluate_at(node.expression, node.line));
        const auto& items = subject.list;
        for (size_t i = 0; i < items.size(); ++i) {
          Context frame;
          frame[node.variable] = items[i];
          Value loop;
          loop.kind = Value::Kind::object;
          loop.object["index"] = Value::of(static_cast<int64_t>(i + 1));
          loop.object["index0"] = Value::of(static_cast<int64_t>(i));
          loop.object["first"] = Value::of(i == 0);
          loop.object["last"] = Value::of(i + 1 == items.size());
          loop.object["length"] = Value::of(static_cast<int64_t>(items.size()));
          frame["loop"] = std::move(loop);
          scopes.push_back(&frame);
          auto status = render_nodes(node.body, out);
          scopes.pop_back();
          if (!status) return status;
        }
        break;
      }
    }
  }
  return {};
}

}  // namespace

Value Value::strings(const std::vector<std::string>& items) {
  std::vector<Value> list;
  for (const auto& item : items) list.push_back(Value::of(item));
  return Value::of(std::move(list));
}

bool Value::truthy() const {
  switch (kind) {
    case Kind::none: return false;
    case Kind::boolean: return boolean;
    case Kind::integer: return integer != 0;
    case Kind::string: return !string.empty();
    case Kind::list: return !list.empty();
    case Kind::object: return !object.empty();
  }
  return false;
}

std::string Value::str() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::boolean: return boolean ? "true" : "false";
    case Kind::integer: return std::to_string(integer);
    case Kind::string: return string;
    case Kind::list: {
      std::string out = "[";
      for (size_t i = 0; i < list.size(); ++i) {
        out += (i ? ", " : "");
        out += list[i].kind == Kind::string ? "\"" + list[i].string + "\"" : list[i].str();
      }
      return out + "]";
    }
    case Kind::object: return "{...}";
  }
  return "";
}

bool Value::operator==(const Value& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::none: return true;
    case Kind::boolean: return boolean == other.boolean;
    case Kind::integer: return integer == other.integer;
    case Kind::string: return string == other.string;
    case Kind::list: return list == other.list;
    case Kind::object: return object == other.object;
  }
  return false;
}

util::Result<std::string> render_template(std::string_view source, const Context& context, std::string_view name,
                                          Undefined undefined) {
  KB_TRY_ASSIGN(auto pieces, lex(source, name));
  KB_TRY_ASSIGN(auto nodes, BlockParser(pieces, name).parse_document());
  std::string out;
  Renderer renderer{name, undefined, {&context}};
  KB_TRY(renderer.render_nodes(nodes, out));
  return out;
}

Context string_context(const std::map<std::string, std::string>& values) {
  Context context;
  for (const auto& [name, value] : values) context.emplace(name, Value::of(value));
  return context;
}

}  // namespace kb::codegen::templating
