// Typed request bodies (hub/protocol/requests.h): accepted shapes, and every refusal names the
// field that is wrong.
#include "hub/protocol/requests.h"

#include <gtest/gtest.h>

namespace kb::hub::protocol {
namespace {
namespace KB_UNITY_ID {

template <class T>
std::string why(const util::Result<T>& result) {
  return result ? "" : result.error().message;
}

const std::string kOid(64, 'a');

TEST(Requests, CreateRepo) {
  auto ok = parse_create_repo(R"({"name":"relu","organization":"acme","type":"kernel","private":true})");
  ASSERT_TRUE(ok) << why(ok);
  EXPECT_EQ(ok->name, "relu");
  EXPECT_EQ(ok->organization, "acme");
  EXPECT_TRUE(ok->is_private);
  auto defaults = parse_create_repo(R"({"name":"x","organization":null,"private":null,"sdk":"ignored"})");
  ASSERT_TRUE(defaults) << why(defaults);
  EXPECT_EQ(defaults->type, "model");
  EXPECT_FALSE(defaults->is_private);
  EXPECT_TRUE(parse_create_repo(R"({"name":"x","visibility":"private"})")->is_private);
  EXPECT_EQ(why(parse_create_repo(R"({"name":7})")), "name: expected a string");
  EXPECT_EQ(why(parse_create_repo(R"({"name":"x","private":"yes"})")), "private: expected a boolean");
  EXPECT_EQ(why(parse_create_repo(R"({})")), "name: required string is missing");
  EXPECT_EQ(why(parse_create_repo(R"([1])")), "body: expected a JSON object");
  EXPECT_EQ(why(parse_create_repo("not json")), "body: not valid JSON");
  EXPECT_EQ(why(parse_create_repo(std::string(100000, '['))), "body: JSON nested deeper than 32 levels");
}

TEST(Requests, LfsBatchSizes) {
  auto ok = parse_lfs_batch(R"({"operation":"upload","transfers":["basic"],"objects":[{"oid":")" + kOid +
                            R"(","size":0}],"hash_algo":"sha256"})");
  ASSERT_TRUE(ok) << why(ok);
  ASSERT_EQ(ok->size(), 1u);
  auto with = [](const std::string& size) {
    return parse_lfs_batch(R"({"operation":"upload","objects":[{"oid":")" + kOid + R"(","size":)" + size + "}]}");
  };
  const std::string expected = "objects[0].size: expected a non-negative integer below 2^63";
  for (const char* bad : {"-1", "18446744073709551616", "18446744073709551615", "9223372036854775808", "1e30", "1.5",
                          "\"12\"", "true"}) {
    EXPECT_EQ(why(with(bad)), expected) << bad;
  }
  EXPECT_TRUE(with("9223372036854775807"));
  EXPECT_EQ(why(parse_lfs_batch(R"({"operation":"upload","objects":[{"oid":5,"size":1}]})")),
            "objects[0].oid: expected 64 lowercase hex digits (a sha256)");
  EXPECT_EQ(why(parse_lfs_batch(R"({"operation":"download","objects":[]})")), "operation: only \"upload\" is supported");
  EXPECT_EQ(why(parse_lfs_batch(R"({"operation":"upload","objects":"x"})")), "objects: expected an array");
  EXPECT_EQ(why(parse_lfs_batch(R"({"operation":"upload","objects":[],"transfers":"basic"})")),
            "transfers: expected an array of strings");
}

TEST(Requests, Preupload) {
  auto ok = parse_preupload(R"({"files":[{"path":"a.bin","size":3,"sample":"AAEC"}]})");
  ASSERT_TRUE(ok) << why(ok);
  EXPECT_EQ((*ok)[0].sample, std::string("\0\1\2", 3));
  EXPECT_EQ(why(parse_preupload(R"({"files":{}})")), "files: expected an array");
  EXPECT_EQ(why(parse_preupload(R"({"files":[{"path":"../x","size":1}]})")),
            "files[0].path: Invalid file path `../x`: '.' and '..' components are not allowed");
  EXPECT_EQ(why(parse_preupload(R"({"files":[{"path":"x","size":1,"sample":"!!"}]})")), "files[0].sample: expected base64");
}

TEST(Requests, CommitPayload) {
  std::string body = R"({"key":"header","value":{"summary":"s","description":"d","parentCommit":"p"}})"
                     "\n"
                     R"({"key":"file","value":{"path":"a.txt","content":"eA==","encoding":"base64"}})"
                     "\n\n"
                     R"({"key":"lfsFile","value":{"path":"b.bin","algo":"sha256","oid":")" + kOid + R"(","size":5}})"
                     "\n"
                     R"({"key":"deletedFile","value":{"path":"c"}})"
                     "\n"
                     R"({"key":"deletedFolder","value":{"path":"d/"}})";
  auto ok = parse_commit_payload(body);
  ASSERT_TRUE(ok) << why(ok);
  EXPECT_EQ(ok->summary, "s");
  EXPECT_EQ(ok->parent_commit, "p");
  ASSERT_EQ(ok->operations.size(), 4u);
  EXPECT_EQ(ok->operations[0].content, "x");
  EXPECT_EQ(ok->operations[1].size, 5u);
  EXPECT_EQ(ok->operations[3].path, "d");
  EXPECT_EQ(why(parse_commit_payload(R"({"key":"file","value":{"path":"g.txt","content":"!!!"}})")),
            "line 1 (file `g.txt`): value.content: expected base64");
  EXPECT_EQ(why(parse_commit_payload(R"({"key":"lfsFile","value":{"path":"l","oid":")" + kOid + R"(","size":"12"}})")),
            "line 1 (lfsFile `l`): value.size: expected a non-negative integer below 2^63");
  EXPECT_EQ(why(parse_commit_payload(R"({"key":"file","value":{"path":"..\\x","content":""}})")),
            "line 1 (file): value.path: Invalid file path `..\\x`: backslashes are not allowed");
  EXPECT_EQ(why(parse_commit_payload("[1,2]")), "line 1: expected a JSON object");
  EXPECT_EQ(why(parse_commit_payload(R"({"key":"header","value":"x"})")), "line 1 (header): value: expected an object");
  EXPECT_EQ(why(parse_commit_payload(R"({"key":"rename","value":{"path":"x"}})")),
            "line 1 (rename): key: unknown commit operation");
  EXPECT_EQ(why(parse_commit_payload(R"({"key":"file","value":{"path":"x","content":"","encoding":"hex"}})")),
            "line 1 (file `x`): value.encoding: only \"base64\" is supported");
}


TEST(Requests, ManagementBodies) {
  auto settings = parse_repo_settings(R"({"gated":false,"visibility":"private"})");
  ASSERT_TRUE(settings) << why(settings);
  EXPECT_EQ(settings->gated, std::optional<std::string>(""));
  EXPECT_EQ(settings->is_private, std::optional<bool>(true));
  auto untouched = parse_repo_settings(R"({"gated":"auto"})");
  ASSERT_TRUE(untouched);
  EXPECT_FALSE(untouched->is_private.has_value());
  EXPECT_EQ(why(parse_repo_settings(R"({"gated":true})")), "gated: expected \"auto\", \"manual\" or false");
  EXPECT_EQ(why(parse_repo_settings(R"({"private":"no"})")), "private: expected a boolean");
  EXPECT_EQ(parse_create_tag(R"({"tag":"v1.0","message":"m"})")->tag, "v1.0");
  EXPECT_NE(why(parse_create_tag(R"({"tag":"bad..name"})")).rfind("tag: ", 0), std::string::npos);
  EXPECT_EQ(why(parse_delete_repo(R"({"organization":"acme"})")), "name: required string is missing");
  EXPECT_EQ(parse_delete_repo(R"({"name":"relu","organization":"acme","type":"kernel"})")->type, "kernel");
  EXPECT_EQ(why(parse_create_discussion(R"({"title":"  ","pullRequest":true})")), "title: must not be empty");
  EXPECT_TRUE(parse_create_discussion(R"({"title":"Fix","pullRequest":true})")->pull_request);
  EXPECT_EQ(parse_validate_yaml(R"({"content":"---\n---\n"})")->repo_type, "model");
}

TEST(Requests, PathsInfoAndLfsBatchRef) {
  auto paths = parse_paths_info(R"({"paths":["a","b/c"],"expand":true})");
  ASSERT_TRUE(paths) << why(paths);
  EXPECT_EQ(paths->paths, (std::vector<std::string>{"a", "b/c"}));
  EXPECT_TRUE(paths->expand);
  std::string many = "{\"paths\":[";
  for (size_t i = 0; i <= kMaxPathsInfoPaths; ++i) many += (i ? ",\"p" : "\"p") + std::to_string(i) + "\"";
  EXPECT_EQ(why(parse_paths_info(many + "]}")), "paths: at most 1000 paths per request");
  EXPECT_EQ(why(parse_paths_info(R"({"paths":[1]})")), "paths[0]: expected a string");
  EXPECT_EQ(*parse_lfs_batch_ref(R"({"objects":[],"ref":{"name":"refs/pr/3"}})"), std::optional<std::string>("refs/pr/3"));
  EXPECT_FALSE(parse_lfs_batch_ref(R"({"objects":[]})")->has_value());
  EXPECT_EQ(why(parse_lfs_batch_ref(R"({"ref":"main"})")), "ref: expected an object");
  EXPECT_NE(why(parse_lfs_batch_ref(R"({"ref":{"name":"a b"}})")).rfind("ref.name: ", 0), std::string::npos);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::protocol
