// The connection layer (see connection.h). httplib 0.11.4 serves each connection on one pool
// thread for its whole life, blocking in a keep-alive wait between requests, so idle clients
// starve the pool. Its extension points are used instead: `process_and_close_socket` (virtual)
// is overridden to run our own per-connection loop over the protected `process_request`, with
// our own Stream (which keeps read-ahead bytes across requests, where httplib's per-request
// SocketStream drops them), and `new_task_queue` supplies a pool that grows on demand.
#include "hub/server/connection.h"

#include <netdb.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <strings.h>
#include <thread>
#include <unordered_map>
#include <vector>

#include "hub/server/http_support.h"

namespace kb::hub::server {

namespace {

constexpr size_t drain_limit = 64 * 1024;
constexpr std::chrono::milliseconds drain_time{1000};

int milliseconds(std::chrono::seconds s) { return static_cast<int>(s.count() * 1000); }

// poll() for one event on one socket; > 0 when ready.
int wait_for(int fd, short events, int timeout_ms) {
  pollfd entry{fd, events, 0};
  int ready;
  do {
    ready = ::poll(&entry, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  return ready;
}

// httplib::Stream over a socket that keeps its read-ahead buffer for the connection's lifetime,
// so pipelined bytes read along with one request are the start of the next.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int fd, int read_timeout_ms, int write_timeout_ms)
      : fd_(fd), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  bool is_readable() const override { return buffered() > 0 || wait_for(fd_, POLLIN, read_wait_ms()) > 0; }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, write_timeout_ms_) > 0; }

  ssize_t read(char* out, size_t size) override {
    if (buffered() == 0) {
      int wait_ms = read_wait_ms();
      if (wait_ms == 0 || wait_for(fd_, POLLIN, wait_ms) <= 0) return -1;
      if (size >= buffer_.size()) return receive(out, size);
      ssize_t n = receive(buffer_.data(), buffer_.size());
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<size_t>(n);
    }
    size_t n = std::min(size, buffered());
    std::copy_n(buffer_.data() + begin_, n, out);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* data, size_t size) override {
    if (wait_for(fd_, POLLOUT, write_timeout_ms_) <= 0) return -1;
    ssize_t n;
    do {
      n = ::send(fd_, data, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(false, ip, port); }
  socket_t socket() const override { return fd_; }

  size_t buffered() const { return end_ - begin_; }
  void discard_buffered() { begin_ = end_ = 0; }

  // Reads fail once `deadline` has passed, however the bytes trickle in (a request head sent a
  // byte at a time would otherwise hold a worker for a read timeout per byte).
  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  void clear_deadline() { deadline_.reset(); }

 private:
  int read_wait_ms() const {
    if (!deadline_) return read_timeout_ms_;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline_ - std::chrono::steady_clock::now());
    return static_cast<int>(std::clamp<int64_t>(left.count(), 0, read_timeout_ms_));
  }

  ssize_t receive(char* out, size_t size) {
    ssize_t n;
    do {
      n = ::recv(fd_, out, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void address_of(bool peer, std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    auto* raw = reinterpret_cast<sockaddr*>(&address);
    int rc = peer ? ::getpeername(fd_, raw, &length) : ::getsockname(fd_, raw, &length);
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (rc != 0 || ::getnameinfo(raw, length, host.data(), host.size(), service.data(), service.size(),
                                 NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
      return;
    }
    ip = host.data();
    port = std::atoi(service.data());
  }

  int fd_;
  int read_timeout_ms_;
  int write_timeout_ms_;
  std::array<char, 16 * 1024> buffer_{};
  size_t begin_ = 0;
  size_t end_ = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

// What the connection layer learns about the request being handled on this thread.
struct RequestState {
  std::chrono::steady_clock::time_point start;
  bool head_parsed = false;    // request line and headers read, framing sound
  bool has_body = false;       // Content-Length > 0 or Transfer-Encoding
  bool body_consumed = false;  // a handler read the body to its end
};

thread_local RequestState current_request;

}  // namespace

// Worker threads started on demand (up to a maximum) that exit after idling a while; the jobs
// are "serve this connection, which has bytes to read".
class WorkerPool final : public httplib::TaskQueue {
 public:
  WorkerPool(size_t max_threads, std::chrono::seconds idle_exit) : max_threads_(max_threads), idle_exit_(idle_exit) {}

  void enqueue(std::function<void()> job) override {
    std::unique_lock lock(mutex_);
    if (stopping_) return;  // the job (and the connection it holds) is dropped: closed
    jobs_.push_back(std::move(job));
    backlog_ = jobs_.size();
    if (jobs_.size() > idle_ && threads_ < max_threads_) {
      try {
        std::thread([this] { work(); }).detach();
        ++threads_;
      } catch (const std::system_error& e) {
        // Out of threads: the job waits for a running worker.
        std::fprintf(stderr, "warning: cannot start a worker thread (%s); %zu running\n", e.what(), threads_);
      }
    }
    wake_.notify_one();
  }

  void shutdown() override {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
    gone_.wait(lock, [this] { return threads_ == 0; });
  }

  // Jobs waiting for a worker (none while some worker is idle).
  size_t backlog() const { return backlog_.load(std::memory_order_relaxed); }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    while (true) {
      if (jobs_.empty() && !stopping_) {
        ++idle_;
        bool woken = wake_.wait_for(lock, idle_exit_, [this] { return !jobs_.empty() || stopping_; });
        --idle_;
        if (!woken) break;
      }
      if (jobs_.empty()) break;  // stopping
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      backlog_ = jobs_.size();
      lock.unlock();
      job();
      lock.lock();
    }
    --threads_;
    gone_.notify_all();
  }

  const size_t max_threads_;
  const std::chrono::seconds idle_exit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable gone_;
  std::deque<std::function<void()>> jobs_;
  size_t threads_ = 0;
  size_t idle_ = 0;
  std::atomic<size_t> backlog_{0};
  bool stopping_ = false;
};

// One open client connection; closing the socket and counting it down happen here.
class Connection {
 public:
  Connection(int socket, const ConnectionOptions& options, std::atomic<size_t>& open)
      : fd(socket),
        stream(socket, milliseconds(options.read_timeout), milliseconds(options.write_timeout)),
        open_count(open) {}
  ~Connection() {
    ::close(fd);
    --open_count;
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd;
  ConnectionStream stream;
  std::atomic<size_t>& open_count;
  size_t requests = 0;
  bool close_after_response = false;
};

namespace {
thread_local Connection* current_connection = nullptr;
}

// Idle connections wait here, in one epoll set watched by one thread, until their next request
// arrives (they go back to the pool) or their keep-alive time runs out (they are closed).
class ConnectionParker {
 public:
  using Resume = std::function<void(std::shared_ptr<Connection>)>;

  ConnectionParker(std::chrono::seconds timeout, Resume resume) : timeout_(timeout), resume_(std::move(resume)) {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = wake_;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &event);
    thread_ = std::thread([this] { run(); });
  }

  ~ConnectionParker() {
    stopping_ = true;
    uint64_t one = 1;
    [[maybe_unused]] auto written = ::write(wake_, &one, sizeof(one));
    thread_.join();
    parked_.clear();
    ::close(wake_);
    ::close(epoll_);
  }

  void park(std::shared_ptr<Connection> connection) {
    int fd = connection->fd;
    {
      std::lock_guard lock(mutex_);
      uint64_t ticket = ++last_ticket_;
      parked_[fd] = {std::move(connection), ticket};
      deadlines_.push_back({std::chrono::steady_clock::now() + timeout_, fd, ticket});
    }
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    event.data.fd = fd;
    if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event) != 0) {
      std::lock_guard lock(mutex_);
      parked_.erase(fd);  // closes it
    }
  }

 private:
  struct Parked {
    std::shared_ptr<Connection> connection;
    uint64_t ticket = 0;
  };
  struct Deadline {
    std::chrono::steady_clock::time_point when;
    int fd;
    uint64_t ticket;
  };

  std::shared_ptr<Connection> take(int fd, uint64_t ticket) {
    std::lock_guard lock(mutex_);
    auto found = parked_.find(fd);
    if (found == parked_.end() || (ticket != 0 && found->second.ticket != ticket)) return nullptr;
    auto connection = std::move(found->second.connection);
    parked_.erase(found);
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
    return connection;
  }

  void run() {
    std::array<epoll_event, 256> events{};
    while (!stopping_) {
      int timeout_ms = 1000;
      {
        std::lock_guard lock(mutex_);
        if (!deadlines_.empty()) {
          auto left = std::chrono::ceil<std::chrono::milliseconds>(deadlines_.front().when -
                                                                    std::chrono::steady_clock::now());
          timeout_ms = static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1000));
        }
      }
      int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), timeout_ms);
      for (int i = 0; i < n; ++i) {
        if (events[static_cast<size_t>(i)].data.fd == wake_) continue;
        if (auto connection = take(events[static_cast<size_t>(i)].data.fd, 0)) resume_(std::move(connection));
      }
      expire();
    }
  }

  void expire() {
    auto now = std::chrono::steady_clock::now();
    std::vector<Deadline> due;
    {
      std::lock_guard lock(mutex_);
      while (!deadlines_.empty() && deadlines_.front().when <= now) {
        due.push_back(deadlines_.front());
        deadlines_.pop_front();
      }
    }
    for (const auto& deadline : due) take(deadline.fd, deadline.ticket);  // dropped: closed
  }

  const std::chrono::seconds timeout_;
  Resume resume_;
  int epoll_ = -1;
  int wake_ = -1;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::unordered_map<int, Parked> parked_;
  std::deque<Deadline> deadlines_;  // in park order, hence in deadline order; stale ones skipped
  uint64_t last_ticket_ = 0;
  std::thread thread_;
};

namespace {

// The task queue httplib's accept loop feeds and deletes when it stops: the pool, owned by the
// server so the parker can feed it too. Shutting down lets the workers finish, then closes the
// parked connections.
class QueueHandle final : public httplib::TaskQueue {
 public:
  QueueHandle(WorkerPool& pool, std::unique_ptr<ConnectionParker>& parker) : pool_(pool), parker_(parker) {}
  void enqueue(std::function<void()> job) override { pool_.enqueue(std::move(job)); }
  void shutdown() override {
    pool_.shutdown();
    parker_.reset();
  }

 private:
  WorkerPool& pool_;
  std::unique_ptr<ConnectionParker>& parker_;
};

// Stops sending (the client sees the end of the response), then reads and discards what the
// client still sends, up to 64 KiB or a second, so that closing does not reset the connection
// before the client has read the response.
void drain(Connection& connection) {
  ::shutdown(connection.fd, SHUT_WR);
  size_t drained = connection.stream.buffered();
  connection.stream.discard_buffered();
  auto deadline = std::chrono::steady_clock::now() + drain_time;
  std::array<char, 16 * 1024> sink{};
  while (drained < drain_limit) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || wait_for(connection.fd, POLLIN, static_cast<int>(left.count())) <= 0) break;
    ssize_t n = ::recv(connection.fd, sink.data(), std::min(sink.size(), drain_limit - drained), 0);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
}

}  // namespace

void close_connection_after_response() {
  if (current_connection != nullptr) current_connection->close_after_response = true;
}

std::chrono::steady_clock::time_point current_request_start() { return current_request.start; }

httplib::ContentReader limited_reader(const httplib::ContentReader& reader, uint64_t limit, bool& over_limit) {
  auto read = [reader, limit, &over_limit](httplib::ContentReceiver receiver) {
    if (!current_request.has_body) {  // decided from the head (framing_of), before routing
      current_request.body_consumed = true;
      return true;
    }
    uint64_t total = 0;
    bool complete = reader([&](const char* data, size_t size) {
      if (size > limit - total) {
        over_limit = true;
        return false;
      }
      total += size;
      return receiver(data, size);
    });
    if (complete) current_request.body_consumed = true;
    return complete;
  };
  auto refuse_multipart = [](const httplib::MultipartContentHeader&, const httplib::ContentReceiver&) {
    return false;
  };
  return httplib::ContentReader(read, refuse_multipart);
}

namespace {

struct Framing {
  bool has_body = false;
  int refusal = 0;  // HTTP status refusing the request, 0 if sound
  std::string message;
};

// RFC 9112 §6: the body's framing from the headers. Requests an intermediary could frame
// differently from us (both headers, several or malformed lengths, codings other than chunked,
// which httplib would treat as read-to-EOF) are refused.
Framing framing_of(const httplib::Request& request) {
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

}  // namespace

ConnectionServer::ConnectionServer(const ConnectionOptions& options)
    : options_(options), pool_(std::make_unique<WorkerPool>(options.max_threads, options.idle_worker_exit)) {
  parker_ = std::make_unique<ConnectionParker>(options.keep_alive_timeout, [this](std::shared_ptr<Connection> connection) {
    pool_->enqueue([this, connection] { serve(connection); });
  });
  new_task_queue = [this] { return new QueueHandle(*pool_, parker_); };
  set_keep_alive_timeout(options.keep_alive_timeout.count());
  set_keep_alive_max_count(options.max_requests_per_connection);
  set_read_timeout(options.read_timeout.count());
  set_write_timeout(options.write_timeout.count());
  httplib::Server::set_pre_routing_handler([this](const httplib::Request& request, httplib::Response& response) {
    current_request.head_parsed = true;
    if (current_connection != nullptr) current_connection->stream.clear_deadline();
    Framing framing = framing_of(request);
    current_request.has_body = framing.has_body;
    if (framing.refusal != 0) {
      reply_error(response, framing.refusal, "", framing.message);
      close_connection_after_response();
      return HandlerResponse::Handled;
    }
    return head_handler_ ? head_handler_(request, response) : HandlerResponse::Unhandled;
  });
  // Runs as each response is written: the last moment to announce that the connection closes.
  set_post_routing_handler([](const httplib::Request&, httplib::Response& response) {
    if (current_connection == nullptr) return;
    const RequestState& state = current_request;
    if (!state.head_parsed || (state.has_body && !state.body_consumed)) current_connection->close_after_response = true;
    if (current_connection->close_after_response) {
      response.set_header("Connection", "close");
      response.headers.erase("Keep-Alive");
    }
  });
}

ConnectionServer::~ConnectionServer() { parker_.reset(); }

void ConnectionServer::set_request_head_handler(HandlerWithResponse handler) { head_handler_ = std::move(handler); }

util::Result<int> ConnectionServer::bind(const std::string& host, int port) {
  if (port == 0) {
    port = bind_to_any_port(host);
    if (port < 0) return util::Error(util::ErrorKind::network, "Cannot bind to " + host);
  } else if (!bind_to_port(host, port)) {
    return util::Error(util::ErrorKind::network, "Cannot bind to " + host + ":" + std::to_string(port))
        .with_hint("is another server already listening on that port?");
  }
  // Listening again on a listening socket only changes its backlog (Linux listen(2)): httplib's
  // fixed 5 would drop connection attempts of a burst of clients until their SYNs are resent.
  ::listen(svr_sock_, SOMAXCONN);
  return port;
}

bool ConnectionServer::process_and_close_socket(socket_t sock) {
  if (open_.fetch_add(1) >= options_.max_connections) {
    refuse(sock);
    return true;
  }
  serve(std::make_shared<Connection>(sock, options_, open_));
  return true;
}

void ConnectionServer::serve(const std::shared_ptr<Connection>& connection) {
  current_connection = connection.get();
  while (true) {
    // Lingering for the next request only while no other connection waits for a worker.
    int linger_ms = pool_->backlog() == 0 ? static_cast<int>(options_.park_after.count()) : 0;
    if (connection->stream.buffered() == 0 && wait_for(connection->fd, POLLIN, linger_ms) <= 0) {
      if (parker_ && svr_sock_ != INVALID_SOCKET) parker_->park(connection);
      break;
    }
    current_request = RequestState{};
    current_request.start = std::chrono::steady_clock::now();
    connection->stream.set_deadline(current_request.start + options_.read_timeout);
    bool last = ++connection->requests >= options_.max_requests_per_connection;
    bool closed_by_client = false;
    bool ok = process_request(connection->stream, last, closed_by_client, nullptr);
    if (!ok || closed_by_client || last || connection->close_after_response || svr_sock_ == INVALID_SOCKET) {
      if (connection->close_after_response) drain(*connection);
      break;
    }
  }
  current_connection = nullptr;
}

void ConnectionServer::refuse(socket_t sock) {
  Connection connection(sock, options_, open_);  // counted by the caller, counts itself down
  std::string body = R"({"error": "Too many connections; try again later"})";
  std::string response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                         "Connection: close\r\nRetry-After: 1\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body;
  for (size_t sent = 0; sent < response.size();) {
    ssize_t n = connection.stream.write(response.data() + sent, response.size() - sent);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::fprintf(stderr, "- - 503 %zu 0.0ms (over --max-connections %zu)\n", body.size(), options_.max_connections);
  drain(connection);
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
