// Small string helpers with no domain knowledge: split/join/trim and "did you mean" matching.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::util {

std::vector<std::string> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);
std::string to_lower(std::string_view text);

// Levenshtein edit distance.
size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within a distance proportional to the word's length, if any.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace kb::util
