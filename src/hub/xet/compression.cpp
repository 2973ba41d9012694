// LZ4 frames through liblz4's lz4frame API, and the byte grouping of the BG4 scheme.
#include "hub/xet/compression.h"

#include <lz4frame.h>

#include <memory>

namespace kb::hub::xet {

std::string lz4_compress(std::string_view data) {
  LZ4F_preferences_t preferences{};
  preferences.frameInfo.blockSizeID = LZ4F_max64KB;
  preferences.frameInfo.blockMode = LZ4F_blockLinked;
  std::string out(LZ4F_compressFrameBound(data.size(), &preferences), '\0');
  size_t written = LZ4F_compressFrame(out.data(), out.size(), data.data(), data.size(), &preferences);
  // Compression into a buffer of the bound's size cannot fail.
  out.resize(LZ4F_isError(written) ? 0 : written);
  return out;
}

std::optional<std::string> lz4_decompress(std::string_view frame, size_t expected_size) {
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) return std::nullopt;
  std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> context(raw, LZ4F_freeDecompressionContext);
  // One spare byte: output beyond the declared size is detected rather than truncated.
  std::string out(expected_size + 1, '\0');
  size_t produced = 0;
  size_t consumed = 0;
  for (;;) {
    size_t out_size = out.size() - produced;
    size_t in_size = frame.size() - consumed;
    size_t hint = LZ4F_decompress(context.get(), out.data() + produced, &out_size, frame.data() + consumed,
                                  &in_size, nullptr);
    if (LZ4F_isError(hint)) return std::nullopt;
    produced += out_size;
    consumed += in_size;
    if (hint == 0) break;  // frame complete
    if (produced > expected_size) return std::nullopt;
    if (in_size == 0 && out_size == 0) return std::nullopt;  // needs input that is not there
  }
  if (consumed != frame.size() || produced != expected_size) return std::nullopt;
  out.resize(produced);
  return out;
}

namespace {

// Where byte i of n bytes stands in their grouped form: group i % 4 (groups are n / 4 long, the
// first n % 4 one longer), position i / 4 within it.
class GroupedPositions {
 public:
  explicit GroupedPositions(size_t n) {
    for (size_t g = 1; g < 4; ++g) start_[g] = start_[g - 1] + n / 4 + (g - 1 < n % 4 ? 1 : 0);
  }
  size_t operator()(size_t i) const { return start_[i % 4] + i / 4; }

 private:
  size_t start_[4] = {0, 0, 0, 0};
};

}  // namespace

std::string byte_group4(std::string_view data) {
  GroupedPositions position(data.size());
  std::string out(data.size(), '\0');
  for (size_t i = 0; i < data.size(); ++i) out[position(i)] = data[i];
  return out;
}

std::string byte_ungroup4(std::string_view grouped) {
  GroupedPositions position(grouped.size());
  std::string out(grouped.size(), '\0');
  for (size_t i = 0; i < grouped.size(); ++i) out[i] = grouped[position(i)];
  return out;
}

}  // namespace kb::hub::xet
