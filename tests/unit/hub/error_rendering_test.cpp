// The Hub client's errors as users read them (golden: tests/unit/hub/golden/http_errors.txt,
// KB_REFRESH_GOLDEN=1 rewrites it, tests/unit/hub/refresh-golden), hints chosen from the status and
// Hub error code rather than the message, and the server's replies from storage errors' fields.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "hub/client/http_client.h"
#include "hub/server/http_message.h"
#include "hub/server/http_support.h"
#include "hub/storage/storage_errors.h"
#include "util/fs.h"
#include "util/report.h"

namespace kb::hub {
namespace {
namespace KB_UNITY_ID {

client::HttpResponse answer(long status, const std::string& code, const std::string& error_text) {
  client::HttpResponse response;
  response.status = status;
  response.url = "https://hub.example/api/kernels/acme/relu/refs";
  if (!code.empty()) response.headers["x-error-code"] = code;
  if (!error_text.empty()) response.body = "{\"error\": \"" + error_text + "\"}";
  return response;
}

client::HubSettings settings(bool token) {
  return client::HubSettings{"https://hub.example", token ? std::optional<std::string>("hf_secret") : std::nullopt,
                             true};
}

TEST(ErrorRendering, Golden) {
  client::HttpClient anonymous(settings(false));
  client::HttpClient with_token(settings(true));
  struct Case {
    std::string name;
    util::Error error;
  };
  std::vector<Case> cases = {
      {"401 without a token", anonymous.http_error(answer(401, "", "Invalid credentials"), "listing refs")},
      {"401 with a token", with_token.http_error(answer(401, "", "Invalid credentials in Authorization header"),
                                                 "listing refs")},
      {"403 gated", with_token.http_error(answer(403, "GatedRepo", "Access to model acme/relu is restricted"),
                                          "file lookup of `build/torch-cpu/metadata.json`")},
      {"403 write", with_token.http_error(answer(403, "", "You don't have the rights to write to `acme/relu`"),
                                          "commit")
                        .context("Cannot upload variant `torch-cpu`")},
      {"404 repository without a token", anonymous.http_error(answer(404, "RepoNotFound", "Repository not found"),
                                                              "listing refs")},
      {"404 repository with a token", with_token.http_error(answer(404, "RepoNotFound", "Repository not found"),
                                                            "listing refs")},
      {"404 revision", with_token.http_error(answer(404, "RevisionNotFound", "Invalid rev id: v9"), "revision lookup")},
      {"404 entry", with_token.http_error(answer(404, "EntryNotFound", "Entry not found: build"), "listing files")},
      {"429", anonymous.http_error(answer(429, "", ""), "listing refs")},
      {"503", anonymous.http_error(answer(503, "", ""), "download")},
  };
  std::string rendered;
  for (const auto& c : cases) rendered += "== " + c.name + "\n" + util::render_error(c.error);
  std::string path = std::string(KB_TEST_DATA_DIR) + "/unit/hub/golden/http_errors.txt";
  if (const char* refresh = std::getenv("KB_REFRESH_GOLDEN"); refresh && refresh[0] == '1') {
    ASSERT_TRUE(util::write_file_atomic(path, rendered));
  }
  auto expected = util::read_file(path);
  ASSERT_TRUE(expected) << "missing " << path << "; run tests/unit/hub/refresh-golden";
  EXPECT_EQ(rendered, *expected);
  EXPECT_EQ(rendered.find("hf_secret"), std::string::npos);
}

TEST(http_error, CarriesStatusAndCodeAndHintsFromThemNotFromTheText) {
  client::HttpClient client(settings(false));
  // A Hub may word its errors in any way: the message below says nothing of "not found" or
  // "gated", so only the fields can have chosen these hints.
  auto gated = client.http_error(answer(403, "GatedRepo", "Nope"), "listing refs");
  EXPECT_EQ(gated.kind, util::ErrorKind::permission);
  EXPECT_EQ(gated.status, 403);
  EXPECT_EQ(gated.code, "GatedRepo");
  ASSERT_EQ(gated.hints.size(), 1u);
  EXPECT_EQ(gated.hints[0], client::http_hint(403, "GatedRepo", false, "https://hub.example"));
  EXPECT_NE(gated.hints[0].find("gated"), std::string::npos);

  auto missing = client.http_error(answer(404, "RepoNotFound", "Nope"), "listing refs");
  EXPECT_EQ(missing.kind, util::ErrorKind::not_found);
  EXPECT_EQ(missing.code, "RepoNotFound");
  ASSERT_EQ(missing.hints.size(), 1u);
  EXPECT_NE(missing.hints[0].find("HF_TOKEN"), std::string::npos);

  // The same text under another status and code gets another hint, or none.
  auto teapot = client.http_error(answer(418, "", "Repository not found; gated; 403"), "listing refs");
  EXPECT_EQ(teapot.status, 418);
  EXPECT_TRUE(teapot.code.empty());
  EXPECT_TRUE(teapot.hints.empty());
}

TEST(http_hint, DependsOnTheToken) {
  EXPECT_NE(client::http_hint(401, "", false, "e").find("hf auth login"), std::string::npos);
  EXPECT_NE(client::http_hint(401, "", true, "e").find("refused the token"), std::string::npos);
  EXPECT_NE(client::http_hint(404, "RepoNotFound", false, "e").find("private repository needs a token"),
            std::string::npos);
  EXPECT_EQ(client::http_hint(404, "EntryNotFound", true, "e"), "");
  EXPECT_EQ(client::http_hint(200, "", true, "e"), "");
}

struct Reply {
  int status;
  std::string code;
  std::string message;
  std::string body;
};

Reply reply(const util::Error& error) {
  server::Response response;
  server::reply_error(response, error);
  return {response.status, response.get_header_value("X-Error-Code"), response.get_header_value("X-Error-Message"),
          response.body};
}

TEST(reply_error, AnswersAStorageErrorFromItsFields) {
  Reply repo = reply(storage::repo_not_found());
  EXPECT_EQ(repo.status, 404);
  EXPECT_EQ(repo.code, "RepoNotFound");
  EXPECT_EQ(repo.message, "Repository not found");
  EXPECT_EQ(repo.body, R"({"error":"Repository not found"})");

  Reply revision = reply(storage::revision_not_found("Invalid rev id: v9"));
  EXPECT_EQ(revision.status, 404);
  EXPECT_EQ(revision.code, "RevisionNotFound");
  EXPECT_EQ(revision.body, R"({"error":"Invalid rev id: v9"})");

  EXPECT_EQ(reply(storage::entry_not_found("File not found: a")).code, "EntryNotFound");
  for (const auto& [error, status] : std::vector<std::pair<util::Error, int>>{
           {storage::discussion_not_found("Discussion #9 not found"), 404},
           {storage::conflict("Reference already exists"), 409},
           {storage::stale_parent("A commit has happened since. Please refresh and try again."), 412},
           {storage::invalid_request("gated: expected \"auto\", \"manual\" or false"), 400},
           {storage::forbidden("Cannot delete the default branch `main`"), 403},
           {storage::storage_failure("Corrupt refs file"), 500}}) {
    Reply r = reply(error);
    EXPECT_EQ(r.status, status) << error.message;
    EXPECT_EQ(r.code, "") << error.message;
    EXPECT_EQ(r.message, error.message);
    EXPECT_EQ(r.body, nlohmann::json({{"error", error.message}}).dump());
  }
  // An error of another layer (no status): the server's own failure.
  EXPECT_EQ(reply(util::Error(util::ErrorKind::io, "disk full")).status, 500);
}

TEST(storage_errors, Kinds) {
  EXPECT_EQ(storage::repo_not_found().kind, util::ErrorKind::not_found);
  EXPECT_EQ(storage::conflict("x").kind, util::ErrorKind::invalid);
  EXPECT_EQ(storage::stale_parent("x").kind, util::ErrorKind::invalid);
  EXPECT_EQ(storage::invalid_request("x").kind, util::ErrorKind::invalid);
  EXPECT_EQ(storage::forbidden("x").kind, util::ErrorKind::permission);
  EXPECT_EQ(storage::storage_failure("x").kind, util::ErrorKind::io);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub
