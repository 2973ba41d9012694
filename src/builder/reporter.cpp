// Stage names for progress output (see reporter.h).
#include "builder/reporter.h"

namespace kb::builder {

std::string_view to_string(Stage stage) {
  switch (stage) {
    case Stage::detect: return "detect";
    case Stage::generate: return "generate";
    case Stage::configure: return "configure";
    case Stage::compile: return "compile";
    case Stage::link: return "link";
    case Stage::stage: return "stage";
    case Stage::check: return "check";
    case Stage::done: return "done";
    case Stage::up_to_date: return "up to date";
    case Stage::failed: return "failed";
  }
  return "";
}

}  // namespace kb::builder
