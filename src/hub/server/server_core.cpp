// The server core (server_core.h) on Boost.Beast and Asio: one Session per connection, its
// handlers serialized on a strand; route handlers and content providers on the WorkerPool.
#include "hub/server/server_core.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <future>
#include <optional>
#include <random>
#include <strings.h>
#include <thread>
#include <vector>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>

#include "hub/server/byte_ranges.h"
#include "hub/server/worker_pool.h"

namespace kb::hub::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// One read of a request body: small while a client sends little (a held slow body costs little
// memory), doubled after each read that fills it, up to kBodyBufferMax.
constexpr size_t kBodyBufferMin = 2 * 1024;
constexpr size_t kBodyBufferMax = 256 * 1024;
constexpr size_t kProviderChunk = 1024 * 1024;  // one pull from a content provider
constexpr size_t kMemoryBodyMax = 64 * 1024;   // a PUT body up to this stays in memory
constexpr size_t kDrainLimit = 64 * 1024;
constexpr std::chrono::milliseconds kDrainTime{1000};

thread_local bool* current_close_flag = nullptr;

std::string status_line(int status) {
  auto reason = bhttp::obsolete_reason(static_cast<bhttp::status>(status));
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason.data(), reason.size()) + "\r\n";
}

std::string error_body(const std::string& message) {
  std::string escaped;
  for (char c : message) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "{\"error\": \"" + escaped + "\"}";
}

void reply_plain_error(Response& response, int status, const std::string& message) {
  response.status = status;
  response.set_header("X-Error-Message", message);
  response.set_content(error_body(message), "application/json");
}

struct Framing {
  bool has_body = false;
  int refusal = 0;  // HTTP status refusing the request, 0 if sound
  std::string message;
};

// RFC 9112 §6: the body's framing from the headers. Requests an intermediary could frame
// differently from us (both headers, several or malformed lengths, codings other than chunked)
// are refused.
Framing framing_of(const Request& request) {
  size_t encodings = request.get_header_value_count("Transfer-Encoding");
  size_t lengths = request.get_header_value_count("Content-Length");
  if (encodings > 0 && lengths > 0) return {false, 400, "Both `Transfer-Encoding` and `Content-Length` are set"};
  if (encodings > 0) {
    std::string coding = request.get_header_value("Transfer-Encoding");
    if (encodings > 1 || ::strcasecmp(coding.c_str(), "chunked") != 0) {
      return {false, 501, "Transfer-Encoding `" + coding + "` is not supported (only `chunked`)"};
    }
    return {true, 0, ""};
  }
  if (lengths == 0) return {};
  std::string text = request.get_header_value("Content-Length");
  uint64_t length = 0;
  auto parsed = std::from_chars(text.data(), text.data() + text.size(), length);
  if (lengths > 1 || text.empty() || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size()) {
    return {false, 400, "Content-Length `" + text + "` is not one byte count"};
  }
  return {length > 0, 0, ""};
}

// A request body being received: memory first, an unlinked file in the spool directory once a
// PUT body outgrows kMemoryBodyMax.
class BodySpool {
 public:
  explicit BodySpool(const std::filesystem::path& dir, bool may_spool) : dir_(dir), may_spool_(may_spool) {}
  ~BodySpool() {
    if (fd_ >= 0) ::close(fd_);
  }
  BodySpool(const BodySpool&) = delete;
  BodySpool& operator=(const BodySpool&) = delete;

  bool append(const char* data, size_t size) {
    if (fd_ < 0 && (!may_spool_ || memory_.size() + size <= kMemoryBodyMax)) {
      memory_.append(data, size);
      return true;
    }
    if (fd_ < 0 && !open_file()) return false;
    return write_all(data, size);
  }
  bool spooled() const { return fd_ >= 0; }
  std::string take_memory() { return std::move(memory_); }
  const std::string& memory() const { return memory_; }

  // Feeds the body from the start.
  bool feed(const ContentReceiver& receiver) const {
    if (fd_ < 0) return memory_.empty() || receiver(memory_.data(), memory_.size());
    std::string buffer(kProviderChunk, '\0');
    for (off_t offset = 0;;) {
      ssize_t got = ::pread(fd_, buffer.data(), buffer.size(), offset);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return false;
      if (got == 0) return true;
      if (!receiver(buffer.data(), static_cast<size_t>(got))) return false;
      offset += got;
    }
  }

 private:
  bool open_file() {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      std::string path = (dir_ / "body-XXXXXX").string();
      fd_ = ::mkostemp(path.data(), O_CLOEXEC);
      if (fd_ < 0) return false;
      ::unlink(path.c_str());
    }
    bool ok = write_all(memory_.data(), memory_.size());
    memory_.clear();
    memory_.shrink_to_fit();
    return ok;
  }
  bool write_all(const char* data, size_t size) {
    while (size > 0) {
      ssize_t n = ::write(fd_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }

  std::filesystem::path dir_;
  bool may_spool_;
  std::string memory_;
  int fd_ = -1;
};

// One piece of a response body: literal bytes, or a span of the content provider's bytes.
struct Segment {
  std::string literal;
  uint64_t first = 0;
  uint64_t length = 0;
  bool from_provider = false;
};

}  // namespace

struct ServerCore::State {
  CoreOptions options;
  CoreHandlers handlers;
  net::io_context io;
  tcp::acceptor acceptor{io};
  std::atomic<size_t> open{0};
  std::unique_ptr<WorkerPool> pool;
  std::atomic<bool> stopping{false};

  State(CoreOptions o, CoreHandlers h)
      : options(std::move(o)), handlers(std::move(h)), io(static_cast<int>(std::max<size_t>(1, options.io_threads))),
        pool(std::make_unique<WorkerPool>(options.max_threads, std::chrono::seconds(30))) {}
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<ServerCore::State> state)
      : stream_(std::move(socket)), state_(std::move(state)) {}
  ~Session() { --state_->open; }

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_head(); });
  }

  // Over --max-connections: 503, then closed.
  void refuse() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      self->close_after_ = true;
      self->body_unread_ = false;
      Response& response = self->response_;
      reply_plain_error(response, 503, "Too many connections; try again later");
      response.set_header("Retry-After", "1");
      self->request_.method = "-";
      self->request_.path = "-";
      self->start_ = Clock::now();
      self->write_response();
    });
  }

 private:
  const CoreOptions& options() const { return state_->options; }

  void read_head() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(options().max_header_bytes));
    parser_->body_limit(boost::none);
    request_ = Request{};
    response_ = Response{};
    close_after_ = false;
    body_unread_ = false;
    sent_body_ = 0;
    if (buffer_.size() == 0) buffer_.shrink_to_fit();  // an idle connection keeps no read buffer
    stream_.expires_after(requests_ == 0 ? options().read_timeout : options().keep_alive_timeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = shared_from_this()](beast::error_code ec, size_t) { self->on_head(ec); });
  }

  void on_head(beast::error_code ec) {
    start_ = Clock::now();
    if (ec) {
      if (ec == bhttp::error::end_of_stream || ec == beast::error::timeout || ec == net::error::eof ||
          ec == net::error::connection_reset || ec == net::error::operation_aborted || !stream_.socket().is_open()) {
        return close();
      }
      int status = ec == bhttp::error::header_limit ? 431 : ec == bhttp::error::bad_transfer_encoding ? 501 : 400;
      close_after_ = true;
      body_unread_ = true;
      request_.method = "-";
      request_.path = "-";
      reply_plain_error(response_, status,
                        status == 431 ? "Request header fields too large" : "Malformed request: " + ec.message());
      return write_response();
    }
    ++requests_;
    const auto& head = parser_->get();
    request_.method = std::string(head.method_string());
    request_.target = std::string(head.target());
    size_t query = request_.target.find('?');
    request_.path = request_.target.substr(0, query);
    if (query != std::string::npos) parse_query_text(std::string_view(request_.target).substr(query + 1), request_.params);
    for (const auto& field : head) request_.headers.emplace(std::string(field.name_string()), std::string(field.value()));
    request_.ranges = parse_range_header(request_.get_header_value("Range"));
    if (requests_ >= options().max_requests_per_connection || !head.keep_alive()) close_after_ = true;

    Framing framing = framing_of(request_);
    has_body_ = framing.has_body;
    if (framing.refusal != 0) {
      close_after_ = true;
      body_unread_ = true;
      reply_plain_error(response_, framing.refusal, framing.message);
      return write_response();
    }
    if (state_->handlers.check_head && state_->handlers.check_head(request_, response_)) {
      if (has_body_) {
        close_after_ = true;
        body_unread_ = true;
      }
      return write_response();
    }
    // Only POST, PUT and DELETE bodies are read; a body sent with anything else is left unread
    // and the connection closed after the answer, so it is never parsed as a request.
    if (has_body_ && request_.method != "POST" && request_.method != "PUT" && request_.method != "DELETE") {
      has_body_ = false;
      body_unread_ = true;
    }
    if (!has_body_) return dispatch();
    limit_ = state_->handlers.body_limit ? state_->handlers.body_limit(request_) : UINT64_MAX;
    parser_->body_limit(limit_);
    spool_.emplace(options().spool_dir, request_.method == "PUT");
    body_start_ = start_;
    body_deadline_ = start_ + options().body_timeout;
    received_ = 0;
    body_unread_ = true;
    if (::strcasecmp(request_.get_header_value("Expect").c_str(), "100-continue") == 0) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(options().write_timeout);
      return net::async_write(stream_, net::buffer(kContinue),
                              [self = shared_from_this()](beast::error_code error, size_t) {
                                if (error) return self->close();
                                self->read_body();
                              });
    }
    read_body();
  }

  // The time by which the next bytes must have arrived: the body's rate, averaged since its
  // start, may fall below --body-min-rate only during the first --read-timeout.
  Clock::time_point body_expiry() const {
    uint64_t rate = std::max<uint64_t>(1, options().body_min_rate);
    auto earned = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
        static_cast<double>(received_) / static_cast<double>(rate)));
    return std::min(body_deadline_, body_start_ + options().read_timeout + earned);
  }

  void read_body() {
    if (!body_buffer_) {
      body_buffer_size_ = kBodyBufferMin;
      body_buffer_ = std::make_unique<char[]>(body_buffer_size_);
    }
    parser_->get().body().data = body_buffer_.get();
    parser_->get().body().size = body_buffer_size_;
    stream_.expires_at(body_expiry());
    bhttp::async_read_some(stream_, buffer_, *parser_,
                           [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_body(beast::error_code ec) {
    if (ec == bhttp::error::need_buffer) ec = {};
    size_t got = body_buffer_size_ - parser_->get().body().size;
    if (got == body_buffer_size_ && body_buffer_size_ < kBodyBufferMax) {
      body_buffer_size_ *= 2;
      auto larger = std::make_unique<char[]>(body_buffer_size_);
      std::copy_n(body_buffer_.get(), got, larger.get());
      body_buffer_ = std::move(larger);
    }
    if (got > 0) {
      received_ += got;
      if (!spool_->append(body_buffer_.get(), got)) {
        close_after_ = true;
        reply_plain_error(response_, 507, "Cannot store the request body");
        return write_response();
      }
    }
    if (ec == bhttp::error::body_limit) {
      close_after_ = true;
      reply_plain_error(response_, 413,
                        "Request body is larger than the server's limit of " + std::to_string(limit_) + " bytes");
      return write_response();
    }
    if (ec) {
      if (ec == beast::error::timeout) {
        bool deadline = Clock::now() >= body_deadline_;
        std::fprintf(stderr, "%s %s - %llu bytes in %.1fs: closed (%s)\n", request_.method.c_str(),
                     request_.path.c_str(), static_cast<unsigned long long>(received_),
                     std::chrono::duration<double>(Clock::now() - body_start_).count(),
                     deadline ? "over --body-timeout" : "slower than --body-min-rate");
      }
      return close();
    }
    if (!parser_->is_done()) return read_body();
    body_unread_ = false;
    body_buffer_.reset();
    dispatch();
  }

  // The route runs on a worker; the response is written back on the connection's strand.
  void dispatch() {
    if (spool_ && !spool_->spooled()) request_.body = spool_->take_memory();
    state_->pool->post([self = shared_from_this()] {
      bool close_flag = false;
      current_close_flag = &close_flag;
      ContentReader reader = [&self](const ContentReceiver& receiver) {
        if (self->spool_ && self->spool_->spooled()) return self->spool_->feed(receiver);
        return self->request_.body.empty() || receiver(self->request_.body.data(), self->request_.body.size());
      };
      try {
        self->state_->handlers.handle(self->request_, self->response_, reader);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s %s: %s\n", self->request_.method.c_str(), self->request_.path.c_str(), e.what());
        self->response_ = Response{};
        reply_plain_error(self->response_, 500, "Internal server error");
      }
      current_close_flag = nullptr;
      net::dispatch(self->stream_.get_executor(), [self, close_flag] {
        if (close_flag) self->close_after_ = true;
        self->spool_.reset();
        self->write_response();
      });
    });
  }

  // Status, headers and the body's segments (ranges applied to file bytes), then the writes.
  void write_response() {
    Response& response = response_;
    int status = response.status < 0 ? 200 : response.status;
    segments_.clear();
    std::string head_fields;
    uint64_t length = 0;
    bool chunked = false;
    if (response.content_provider) {
      uint64_t size = response.content_length;
      RangePlan plan;
      if (response.file_bytes && status == 200) plan = plan_byte_ranges(request_.ranges, size);
      if (plan.kind == RangePlan::Kind::unsatisfiable) {
        status = 416;
        response.content_provider = nullptr;
        response.set_header("Content-Range", "bytes */" + std::to_string(size));
        response.set_content(error_body("Range not satisfiable: the file has " + std::to_string(size) + " bytes"),
                             "application/json");
      } else if (plan.kind == RangePlan::Kind::partial && plan.spans.size() == 1) {
        status = 206;
        const ByteSpan& span = plan.spans.front();
        response.set_header("Content-Range", "bytes " + std::to_string(span.first) + "-" +
                                                 std::to_string(span.first + span.length - 1) + "/" + std::to_string(size));
        segments_.push_back({"", span.first, span.length, true});
      } else if (plan.kind == RangePlan::Kind::partial) {
        status = 206;
        std::string boundary = "kernel-hub-" + std::to_string(std::random_device{}());
        std::string type = response.get_header_value("Content-Type");
        for (const ByteSpan& span : plan.spans) {
          segments_.push_back({"\r\n--" + boundary + "\r\nContent-Type: " + type + "\r\nContent-Range: bytes " +
                                   std::to_string(span.first) + "-" + std::to_string(span.first + span.length - 1) +
                                   "/" + std::to_string(size) + "\r\n\r\n",
                               0, 0, false});
          segments_.push_back({"", span.first, span.length, true});
        }
        segments_.push_back({"\r\n--" + boundary + "--\r\n", 0, 0, false});
        response.set_header("Content-Type", "multipart/byteranges; boundary=" + boundary);
      } else {
        if (size > 0) segments_.push_back({"", 0, size, true});
      }
    }
    if (response.content_provider) {
      for (const Segment& segment : segments_) length += segment.from_provider ? segment.length : segment.literal.size();
    } else if (response.chunked_provider) {
      chunked = true;
    } else {
      length = response.body.size();
      if (length > 0) segments_.push_back({std::move(response.body), 0, 0, false});
    }
    response.status = status;
    std::string head = status_line(status);
    for (const auto& [key, value] : response.headers) {
      if (::strcasecmp(key.c_str(), "Content-Length") == 0 || ::strcasecmp(key.c_str(), "Connection") == 0 ||
          ::strcasecmp(key.c_str(), "Transfer-Encoding") == 0) {
        continue;
      }
      head += key + ": " + value + "\r\n";
    }
    if (chunked) {
      head += "Transfer-Encoding: chunked\r\n";
    } else {
      head += "Content-Length: " + std::to_string(length) + "\r\n";
    }
    if (body_unread_) close_after_ = true;
    if (close_after_) {
      head += "Connection: close\r\n\r\n";
    } else {
      head += "Connection: keep-alive\r\nKeep-Alive: timeout=" + std::to_string(options().keep_alive_timeout.count()) +
              ", max=" + std::to_string(options().max_requests_per_connection - requests_) + "\r\n\r\n";
    }
    if (request_.method == "HEAD") {
      segments_.clear();
      chunked = false;
    }
    segments_.insert(segments_.begin(), Segment{std::move(head), 0, 0, false});
    if (chunked) return write_chunked();
    write_segment(0, 0);
  }

  void write_literal(const std::string& bytes, std::function<void()> next) {
    stream_.expires_after(options().write_timeout);
    net::async_write(stream_, net::buffer(bytes),
                     [self = shared_from_this(), next = std::move(next)](beast::error_code ec, size_t) {
                       if (ec) return self->close();
                       next();
                     });
  }

  void write_segment(size_t index, uint64_t offset) {
    if (index == segments_.size()) return finish();
    Segment& segment = segments_[index];
    if (!segment.from_provider) {
      if (index > 0) sent_body_ += segment.literal.size();
      return write_literal(segment.literal, [this, index] { write_segment(index + 1, 0); });
    }
    if (offset >= segment.length) return write_segment(index + 1, 0);
    if (response_.file_descriptor >= 0) return send_file(index, offset);
    uint64_t want = std::min<uint64_t>(segment.length - offset, kProviderChunk);
    uint64_t at = segment.first + offset;
    // The provider reads storage (disk, xorbs): on a worker, one chunk at a time.
    state_->pool->post([self = shared_from_this(), index, offset, at, want] {
      auto chunk = std::make_shared<std::string>();
      chunk->reserve(want);
      DataSink sink;
      sink.write = [&chunk, want](const char* data, size_t size) {
        chunk->append(data, std::min<size_t>(size, want - chunk->size()));
        return true;
      };
      sink.done = [] {};
      // A provider may write less than asked (resolve reads 256 KiB at a time): pulled until the
      // chunk is full, so each write to the client carries up to kProviderChunk.
      bool ok = true;
      while (ok && chunk->size() < want) {
        size_t before = chunk->size();
        ok = self->response_.content_provider(at + before, want - before, sink) && chunk->size() > before;
      }
      ok = ok || !chunk->empty();
      net::dispatch(self->stream_.get_executor(), [self, chunk, ok, index, offset] {
        if (!ok) return self->close();
        self->sent_body_ += chunk->size();
        self->stream_.expires_after(self->options().write_timeout);
        net::async_write(self->stream_, net::buffer(*chunk), [self, chunk, index, offset](beast::error_code ec, size_t) {
          if (ec) return self->close();
          self->write_segment(index, offset + chunk->size());
        });
      });
    });
  }

  // File bytes from a regular file: sendfile(2) straight from the page cache, waiting for the
  // socket to take more under --write-timeout (no worker, no copy in user space).
  void send_file(size_t index, uint64_t offset) {
    const Segment& segment = segments_[index];
    beast::error_code ignored;
    stream_.socket().non_blocking(true, ignored);
    int socket = stream_.socket().native_handle();
    while (offset < segment.length) {
      off_t at = static_cast<off_t>(segment.first + offset);
      ssize_t sent = ::sendfile(socket, response_.file_descriptor, &at,
                                static_cast<size_t>(std::min<uint64_t>(segment.length - offset, 4 * kProviderChunk)));
      if (sent > 0) {
        offset += static_cast<uint64_t>(sent);
        sent_body_ += static_cast<uint64_t>(sent);
        continue;
      }
      if (sent < 0 && errno == EINTR) continue;
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        write_timer_.expires_after(options().write_timeout);
        write_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
          if (!ec) self->stream_.socket().cancel();
        });
        stream_.socket().async_wait(tcp::socket::wait_write,
                                    [self = shared_from_this(), index, offset](beast::error_code ec) {
                                      self->write_timer_.cancel();
                                      if (ec) return self->close();
                                      self->send_file(index, offset);
                                    });
        return;
      }
      return close();  // the file ended early or the client went away
    }
    write_segment(index + 1, 0);
  }

  // A body of unknown length (the bulk download): its provider runs on a worker and waits for
  // each chunk to be written, each write under --write-timeout.
  void write_chunked() {
    write_literal(segments_.front().literal, [self = shared_from_this()] {
      self->state_->pool->post([self] {
        std::string pending;
        bool failed = false;
        auto flush = [&](bool last) {
          std::string frame;
          if (!pending.empty()) {
            char size[32];
            std::snprintf(size, sizeof(size), "%zx\r\n", pending.size());
            frame = size + pending + "\r\n";
          }
          if (last) frame += "0\r\n\r\n";
          self->sent_body_ += pending.size();
          pending.clear();
          std::promise<bool> written;
          auto future = written.get_future();
          net::dispatch(self->stream_.get_executor(), [self, &frame, &written] {
            self->stream_.expires_after(self->options().write_timeout);
            net::async_write(self->stream_, net::buffer(frame),
                             [&written](beast::error_code ec, size_t) { written.set_value(!ec); });
          });
          if (!future.get()) failed = true;
        };
        bool done = false;
        DataSink sink;
        sink.write = [&](const char* data, size_t size) {
          if (failed) return false;
          pending.append(data, size);
          if (pending.size() >= kProviderChunk) flush(false);
          return !failed;
        };
        sink.done = [&] {
          if (!failed && !done) flush(true);
          done = true;
        };
        bool ok = self->response_.chunked_provider(0, sink) && done && !failed;
        net::dispatch(self->stream_.get_executor(), [self, ok] {
          if (!ok) return self->close();
          self->finish();
        });
      });
    });
  }

  void finish() {
    if (state_->handlers.log) {
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
      state_->handlers.log(request_, response_, sent_body_, ms);
    }
    if (close_after_ || state_->stopping) return drain();
    read_head();
  }

  // Stops sending (the client sees the end of the response), then reads and discards what the
  // client still sends, up to 64 KiB or a second, so that closing does not reset the connection
  // before the client has read the response.
  void drain() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    drained_ = buffer_.size();
    buffer_.consume(buffer_.size());
    drain_until_ = Clock::now() + kDrainTime;
    drain_more();
  }

  void drain_more() {
    if (drained_ >= kDrainLimit) return close();
    if (!body_buffer_) {
      body_buffer_size_ = kBodyBufferMin;
      body_buffer_ = std::make_unique<char[]>(body_buffer_size_);
    }
    stream_.expires_at(drain_until_);
    stream_.async_read_some(net::buffer(body_buffer_.get(), std::min(body_buffer_size_, kDrainLimit - drained_)),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->close();
                              self->drained_ += n;
                              self->drain_more();
                            });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  std::shared_ptr<ServerCore::State> state_;
  net::steady_timer write_timer_{stream_.get_executor()};
  beast::flat_buffer buffer_{options_buffer_limit()};
  std::optional<bhttp::request_parser<bhttp::buffer_body>> parser_;
  std::optional<BodySpool> spool_;
  std::unique_ptr<char[]> body_buffer_;
  size_t body_buffer_size_ = 0;
  Request request_;
  Response response_;
  std::vector<Segment> segments_;
  Clock::time_point start_{};
  Clock::time_point body_start_{};
  Clock::time_point body_deadline_{};
  Clock::time_point drain_until_{};
  uint64_t received_ = 0;
  uint64_t limit_ = 0;
  uint64_t sent_body_ = 0;
  size_t drained_ = 0;
  size_t requests_ = 0;
  bool has_body_ = false;
  bool body_unread_ = false;
  bool close_after_ = false;

  static size_t options_buffer_limit() { return 128 * 1024; }
};

void accept_next(const std::shared_ptr<ServerCore::State>& state) {
  state->acceptor.async_accept(net::make_strand(state->io), [state](beast::error_code ec, tcp::socket socket) {
    if (state->stopping) return;
    if (!ec) {
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      bool over = state->open.fetch_add(1) >= state->options.max_connections;
      auto session = std::make_shared<Session>(std::move(socket), state);
      if (over) {
        std::fprintf(stderr, "- - 503 (over --max-connections %zu)\n", state->options.max_connections);
        session->refuse();
      } else {
        session->start();
      }
    } else if (ec == net::error::no_descriptors) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // out of descriptors: retry shortly
    }
    accept_next(state);
  });
}

}  // namespace

ServerCore::ServerCore(CoreOptions options, CoreHandlers handlers)
    : state_(std::make_shared<State>(std::move(options), std::move(handlers))) {}

ServerCore::~ServerCore() { stop(); }

util::Result<int> ServerCore::bind(const std::string& host, int port) {
  beast::error_code ec;
  auto address = net::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) return util::Error(util::ErrorKind::network, "Cannot bind to " + host + ": not an IP address");
  tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  auto& acceptor = state_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(SOMAXCONN, ec);
  if (ec) {
    auto error = util::Error(util::ErrorKind::network, "Cannot bind to " + host + ":" + std::to_string(port) + ": " + ec.message());
    if (port != 0) return std::move(error).with_hint("is another server already listening on that port?");
    return error;
  }
  return static_cast<int>(acceptor.local_endpoint().port());
}

util::Status ServerCore::run() {
  accept_next(state_);
  std::vector<std::thread> threads;
  for (size_t i = 1; i < std::max<size_t>(1, state_->options.io_threads); ++i) {
    threads.emplace_back([state = state_] { state->io.run(); });
  }
  state_->io.run();
  for (auto& thread : threads) thread.join();
  return {};
}

void ServerCore::stop() {
  state_->stopping = true;
  state_->io.stop();
}

void close_connection_after_response() {
  if (current_close_flag != nullptr) *current_close_flag = true;
}

uint64_t raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(limit.rlim_cur);
}

}  // namespace kb::hub::server
