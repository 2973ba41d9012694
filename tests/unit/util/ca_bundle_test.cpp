#include "util/ca_bundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

namespace fs = std::filesystem;
using namespace kb::util;

namespace {

auto environment(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kb-ca-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  fs::path file(const std::string& name) const {
    std::ofstream(path / name) << "-----BEGIN CERTIFICATE-----\n";
    return path / name;
  }
};

}  // namespace

TEST(find_ca_bundle, ASetVariableWinsInOrder) {
  TempDir dir;
  auto distro = dir.file("distro.crt");
  EXPECT_EQ(find_ca_bundle(environment({{"CURL_CA_BUNDLE", "/c.pem"}, {"REQUESTS_CA_BUNDLE", "/r.pem"}}), {distro}),
            fs::path("/r.pem"));
  EXPECT_EQ(find_ca_bundle(environment({{"CURL_CA_BUNDLE", "/c.pem"}, {"SSL_CERT_FILE", "/s.pem"}}), {distro}),
            fs::path("/s.pem"));
}

TEST(find_ca_bundle, EmptyVariablesAreSkipped) {
  TempDir dir;
  auto distro = dir.file("distro.crt");
  EXPECT_EQ(find_ca_bundle(environment({{"SSL_CERT_FILE", ""}, {"CURL_CA_BUNDLE", ""}}), {distro}), distro);
}

TEST(find_ca_bundle, FirstExistingCandidateOfTheLayouts) {
  TempDir dir;
  auto fedora = dir.file("fedora.crt");
  auto alpine = dir.file("alpine.pem");
  EXPECT_EQ(find_ca_bundle(environment({}), {dir.path / "debian-missing.crt", fedora, alpine}), fedora);
  EXPECT_EQ(find_ca_bundle(environment({}), {dir.path / "missing.crt"}), std::nullopt);
  EXPECT_EQ(find_ca_bundle(environment({}), {dir.path}), std::nullopt);  // a directory is no bundle
}

TEST(find_ca_bundle, KnowsDebianAndFedoraLayouts) {
  const auto& candidates = ca_bundle_candidates();
  auto has = [&](const char* path) { return std::find(candidates.begin(), candidates.end(), fs::path(path)) != candidates.end(); };
  EXPECT_TRUE(has("/etc/ssl/certs/ca-certificates.crt"));
  EXPECT_TRUE(has("/etc/pki/tls/certs/ca-bundle.crt"));
  EXPECT_TRUE(has("/etc/ssl/ca-bundle.pem"));
}
