// The Hub server's own request and response types: what the routes read and write, whatever
// server core carries them (server_core.h). Routes never see the socket: a body arrives whole
// (POST/DELETE) or through a ContentReader (PUT uploads), a response is a string or a content
// provider that the core pulls from. Byte ranges apply only to a response marked as file bytes
// (docs/hub-security.md, "Ranges").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb::hub::server {

struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const;
};
using Headers = std::multimap<std::string, std::string, CaseInsensitiveLess>;
using Params = std::multimap<std::string, std::string>;

// Where a content provider writes: `write` returns false when the client went away.
struct DataSink {
  std::function<bool(const char* data, size_t size)> write;
  std::function<void()> done;  // chunked providers: the body is complete
};
// Writes bytes [offset, offset + length) of the content (some of them: it is called again for
// the rest); false stops the response.
using ContentProvider = std::function<bool(uint64_t offset, uint64_t length, DataSink& sink)>;
// Writes the next part of a body of unknown length, then calls sink.done().
using ChunkedContentProvider = std::function<bool(uint64_t offset, DataSink& sink)>;
// Receives the parts of a request body in order; false stops reading.
using ContentReceiver = std::function<bool(const char* data, size_t size)>;
// Feeds the request body to a receiver; true when the whole body was read.
using ContentReader = std::function<bool(const ContentReceiver& receiver)>;

// One byte-range-spec of a Range header (RFC 9110 §14.1.1): first-last, first- (last = -1) or
// -suffix (first = -1, last = suffix length).
using RangeSpec = std::pair<int64_t, int64_t>;

struct Request {
  std::string method;
  std::string target;  // as sent: path and query, still percent-encoded
  std::string path;    // target without the query
  Headers headers;
  Params params;       // the query, decoded
  std::string body;    // POST/DELETE bodies (PUT bodies go through a ContentReader)
  // The Range header's specs (empty: none, or not a valid bytes range). The core applies them to
  // file-byte responses; routes read them only where a Range is an argument (Xet reconstruction).
  std::vector<RangeSpec> ranges;

  bool has_header(const std::string& key) const { return headers.find(key) != headers.end(); }
  std::string get_header_value(const std::string& key, size_t index = 0) const;
  size_t get_header_value_count(const std::string& key) const { return headers.count(key); }
  bool has_param(const std::string& key) const { return params.find(key) != params.end(); }
  std::string get_param_value(const std::string& key, size_t index = 0) const;
  bool is_multipart_form_data() const;
};

struct Response {
  int status = -1;  // unset: 200, or 206 when ranges were applied to file bytes
  Headers headers;
  std::string body;
  // A streamed body: `content_provider` of `content_length` bytes, or `chunked_provider`.
  uint64_t content_length = 0;
  ContentProvider content_provider;
  ChunkedContentProvider chunked_provider;
  // The body is a file's bytes: a Range header of the request applies to it. Only resolve, LFS
  // objects and xorb ranges set it; JSON and HTML answers never do.
  bool file_bytes = false;
  // Where the file bytes are in a regular file, when they are: the core then sends them with
  // sendfile(2) from `file_descriptor` (kept open by `file_owner`) instead of the provider.
  int file_descriptor = -1;
  std::shared_ptr<const void> file_owner;

  bool has_header(const std::string& key) const { return headers.find(key) != headers.end(); }
  std::string get_header_value(const std::string& key) const;
  void set_header(const std::string& key, const std::string& value);
  void set_content(std::string content, const std::string& content_type);
  // A file's bytes, pulled from `provider` as the client reads them; ranges apply.
  void set_file_content(uint64_t length, const std::string& content_type, ContentProvider provider);
  // A body of unknown length (sent chunked); ranges never apply.
  void set_chunked_content_provider(const std::string& content_type, ChunkedContentProvider provider);
};

// The query string ("a=1&b=%20x") into `params` (form decoding: '+' is a space).
void parse_query_text(std::string_view query, Params& params);

// The specs of a "bytes=" Range header value; empty when it is not one (an invalid Range is
// ignored, RFC 9110 §14.2). At most `max_specs` are read: a longer list is ignored whole.
std::vector<RangeSpec> parse_range_header(std::string_view value, size_t max_specs = 256);

}  // namespace kb::hub::server
