// Validation of the YAML metadata block ("front matter") of a repository card (README.md), as
// `POST /api/validate-yaml` answers it (docs/hub-api.md). The YAML is parsed by yaml-cpp; the
// rules are the types huggingface.co gives the common metadata fields.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb::hub::protocol {

struct CardMetadataReport {
  std::vector<std::string> errors;    // the card is refused (400)
  std::vector<std::string> warnings;  // accepted, with remarks (e.g. no metadata at all)
};

// The same rules apply to every repository type (model, kernel, dataset, space).
CardMetadataReport validate_card_metadata(std::string_view card);

}  // namespace kb::hub::protocol
