// The order in which Ninja starts a variant's compiles (docs/build-engine.md). Ninja starts the
// ready commands of equal depth in the order of their build statements in build.ninja, and CMake
// writes a target's objects in the order of its sources, which is also the order they are linked
// in. A build bounded by one long compile finishes soonest when that compile starts first, so
// before a build the builder moves the build statements of the objects that took longest in the
// last build of the directory (Ninja's `.ninja_log`; in a new directory, another variant's:
// compile_step.cpp) to the front, longest first. Only the start
// order changes: the link line, the commands and so the objects and the module stay the same.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kb::builder {

struct StartOrder {
  std::string manifest;            // build.ninja with the objects' statements moved
  std::vector<std::string> first;  // those objects, in their new order (longest first)
};

// `manifest`: the text of a build.ninja; `seconds`: each output's compile time in the last build.
// The objects (outputs ending in .o or .obj) with a time move, longest first (equal times keep
// their order), to where the first object's statement was. Nothing (nullopt) when fewer than two
// objects have a time, when they already are in that order, or when a top-level line other than a
// comment (a variable, rule, pool, include, default) lies among the statements that would move: a
// statement moved across it could read another value of a variable (pure).
std::optional<StartOrder> longest_first(const std::string& manifest, const std::map<std::string, double>& seconds);

// The objects (outputs ending in .o or .obj) that `manifest`'s build statements produce (pure).
std::set<std::string> object_outputs(const std::string& manifest);

// The first output of a `build` line of a Ninja manifest, unescaped ($ , $:, $$); empty when the
// line is not a build statement (pure).
std::string first_output(const std::string& build_line);

}  // namespace kb::builder
