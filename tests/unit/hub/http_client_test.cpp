// HttpClient against a local httplib server: retries with back-off honouring Retry-After,
// give-up after 5 retries, resumable downloads with Range, no token sent to another origin,
// redaction of tokens.
#include "hub/client/http_client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

#include "util/fs.h"

namespace kb::hub::client {
namespace {
namespace KB_UNITY_ID {

class LocalServer {
 public:
  LocalServer() {
    server_.set_keep_alive_max_count(1);  // so stop() need not wait for idle connections
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LocalServer() {
    server_.stop();
    thread_.join();
  }
  httplib::Server& server() { return server_; }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

struct Recorder {
  std::vector<std::chrono::milliseconds> delays;
  RetryPolicy policy() {
    RetryPolicy p;
    p.sleep = [this](std::chrono::milliseconds d) { delays.push_back(d); };
    return p;
  }
};

TEST(HttpClient, Retries429And5xxWithBackoffAndRetryAfter) {
  LocalServer local;
  std::atomic<int> calls{0};
  local.server().Get("/flaky", [&](const httplib::Request&, httplib::Response& res) {
    int n = calls++;
    if (n == 0) { res.status = 429; res.set_header("Retry-After", "3"); return; }
    if (n < 3) { res.status = 503; return; }
    res.set_content("ok", "text/plain");
  });
  Recorder recorder;
  HttpClient client(HubSettings{local.url(""), std::nullopt, true}, recorder.policy());
  auto response = client.send({"GET", local.url("/flaky"), {}, {}, {}, {}});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok");
  ASSERT_EQ(recorder.delays.size(), 3u);
  EXPECT_EQ(recorder.delays[0], std::chrono::milliseconds(3000));  // Retry-After honoured
  EXPECT_EQ(recorder.delays[1], std::chrono::milliseconds(1000));  // 500ms * 2^1
  EXPECT_EQ(recorder.delays[2], std::chrono::milliseconds(2000));
}

TEST(HttpClient, GivesUpAfterFiveRetries) {
  LocalServer local;
  std::atomic<int> calls{0};
  local.server().Get("/down", [&](const httplib::Request&, httplib::Response& res) { ++calls; res.status = 502; });
  Recorder recorder;
  HttpClient client(HubSettings{local.url(""), std::nullopt, true}, recorder.policy());
  auto response = client.send({"GET", local.url("/down"), {}, {}, {}, {}});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 502);
  EXPECT_EQ(calls.load(), 6);
  EXPECT_EQ(recorder.delays.size(), 5u);
}

TEST(HttpClient, DownloadResumesWithRange) {
  LocalServer local;
  std::string data(100000, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 26);
  std::vector<std::string> ranges;
  local.server().Get("/file", [&](const httplib::Request& req, httplib::Response& res) {
    ranges.push_back(req.get_header_value("Range"));
    res.set_content(data, "application/octet-stream");  // httplib applies Range (206)
  });
  util::TempDir dir;
  auto destination = dir.path() / "out.bin";
  ASSERT_TRUE(util::write_file_atomic(dir.path() / "out.bin.incomplete", data.substr(0, 40000)).ok());
  HttpClient client(HubSettings{local.url(""), std::nullopt, true});
  auto response = client.download(local.url("/file"), destination, data.size(), {});
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status, 206);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0], "bytes=40000-");
  EXPECT_EQ(*util::read_file(destination), data);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "out.bin.incomplete"));
}

TEST(HttpClient, TokenNotSentAfterRedirectToAnotherOrigin) {
  LocalServer hub;
  LocalServer cdn;
  std::string seen_by_hub;
  std::string seen_by_cdn = "unset";
  cdn.server().Get("/blob", [&](const httplib::Request& req, httplib::Response& res) {
    seen_by_cdn = req.get_header_value("Authorization");
    res.set_content("blob", "text/plain");
  });
  hub.server().Get("/file", [&](const httplib::Request& req, httplib::Response& res) {
    seen_by_hub = req.get_header_value("Authorization");
    res.set_redirect(cdn.url("/blob"));
  });
  HttpClient client(HubSettings{hub.url(""), std::string("hf_secret"), true});
  auto response = client.send({"GET", hub.url("/file"), {}, {}, {}, {}});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->body, "blob");
  EXPECT_EQ(seen_by_hub, "Bearer hf_secret");
  EXPECT_EQ(seen_by_cdn, "");
}

TEST(HttpClient, SendsTheCallersUserAgent) {
  LocalServer local;
  std::vector<std::string> agents;
  std::vector<std::string> injected;
  local.server().Get("/ua", [&](const httplib::Request& req, httplib::Response& res) {
    agents.push_back(req.get_header_value("User-Agent"));
    injected.push_back(req.get_header_value("X-Injected"));
    res.set_content("ok", "text/plain");
  });
  HubSettings settings{local.url(""), std::nullopt, true};
  settings.user_agent = "app/1; kernels/0.17.2; python/3.11";
  ASSERT_TRUE(HttpClient(settings).send({"GET", local.url("/ua"), {}, {}, {}, {}}).ok());
  settings.user_agent = "";  // HF_HUB_DISABLE_TELEMETRY: the Python package passes an empty agent
  ASSERT_TRUE(HttpClient(settings).send({"GET", local.url("/ua"), {}, {}, {}, {}}).ok());
  settings.user_agent = "app/1\r\nX-Injected: yes";  // a caller's dict may hold a line break
  ASSERT_TRUE(HttpClient(settings).send({"GET", local.url("/ua"), {}, {}, {}, {}}).ok());
  ASSERT_EQ(agents.size(), 3u);
  EXPECT_EQ(agents[0], "app/1; kernels/0.17.2; python/3.11");
  EXPECT_EQ(agents[1], kDefaultUserAgent);
  EXPECT_EQ(agents[2], "app/1  X-Injected: yes");
  EXPECT_EQ(injected[2], "");
}

TEST(redact, RemovesTokensEverywhere) {
  EXPECT_EQ(redact("GET http://h/x?token=abc&y=1 Bearer hf_secret", std::string("hf_secret")),
            "GET http://h/x?token=***&y=1 Bearer ***");
  EXPECT_EQ(redact("failed for hf_secret.", std::string("hf_secret")), "failed for ***.");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::client
