#include "cluster/kube_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>

#include "cluster/kubeconfig_reader.h"
#include "cluster/test_certs.h"
#include "common/base64.h"

namespace gpugate::cluster {
namespace {

using testing::TempDir;

// Replaces every "$NAME" of `vars` in `text`.
std::string Expand(std::string text, const std::vector<std::pair<std::string, std::string>>& vars) {
  for (const auto& [name, value] : vars) {
    for (size_t at; (at = text.find(name)) != std::string::npos;)
      text.replace(at, name.size(), value);
  }
  return text;
}

class KubeConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& certs = testing::SharedTestCerts().bundle;
    other_ = testing::IssueTestCerts();  // a key that belongs to another certificate
    dir_.Write("ca.crt", certs.caCertPem);
    dir_.Write("sub/client.crt", certs.serverCertPem);
    dir_.Write("sub/client.key", certs.serverKeyPem);
    dir_.Write("token.txt", "file-token\n");
    vars_ = {{"$DIR", dir_.path()},
             {"$CA64", Base64Encode(certs.caCertPem)},
             {"$CERT64", Base64Encode(certs.serverCertPem)},
             {"$KEY64", Base64Encode(certs.serverKeyPem)},
             {"$OTHERKEY64", Base64Encode(other_->bundle.serverKeyPem)},
             {"$NOTPEM64", Base64Encode("hello")}};
  }

  // The config, rendered short: "host:port ca=test insecure sni=x token=t tokenFile=f cert=test".
  std::string Render(const KubeConfig& c) const {
    const auto& certs = testing::SharedTestCerts().bundle;
    std::string out = c.host + ":" + std::to_string(c.port);
    if (!c.caPem.empty()) out += c.caPem == certs.caCertPem ? " ca=test" : " ca=other";
    if (c.insecureSkipVerify) out += " insecure";
    if (!c.tlsServerName.empty()) out += " sni=" + c.tlsServerName;
    if (!c.token.empty()) out += " token=" + c.token;
    if (!c.tokenFile.empty()) out += " tokenFile=" + Expand(c.tokenFile, {{dir_.path(), "$DIR"}});
    if (!c.clientCertPem.empty()) {
      bool same = c.clientCertPem == certs.serverCertPem && c.clientKeyPem == certs.serverKeyPem;
      out += same ? " cert=test" : " cert=other";
    }
    return out;
  }

  // Writes `yaml` as $DIR/kubeconfig and loads it: the rendered config, or the error with
  // $DIR put back for the directory.
  std::string Load(const std::string& yaml, const std::string& context = "") {
    std::string path = dir_.Write("kubeconfig", Expand(yaml, vars_));
    auto config = LoadKubeconfig(path, context);
    if (!config) return "error: " + Expand(config.error().message, {{dir_.path(), "$DIR"}});
    return Render(*config);
  }

  TempDir dir_;
  std::unique_ptr<testing::TestCerts> other_;
  std::vector<std::pair<std::string, std::string>> vars_;
};

// A kubeconfig with one context "main" -> cluster "c" / user "u", given their bodies.
std::string OneContext(const std::string& cluster, const std::string& user) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\n"
         "contexts:\n- name: main\n  context: {cluster: c, user: u}\n"
         "clusters:\n- name: c\n  cluster:\n" +
         cluster + "users:\n- name: u\n  user:\n" + user;
}

constexpr char kServer[] = "    server: https://10.0.0.1:6443\n";

TEST_F(KubeConfigTest, ReadsClustersAndUsers) {
  struct Case {
    std::string name, cluster, user, want;
  } cases[] = {
      {"token", kServer, "    token: abc\n", "10.0.0.1:6443 token=abc"},
      {"token file, relative", kServer, "    tokenFile: token.txt\n",
       "10.0.0.1:6443 tokenFile=$DIR/token.txt"},
      {"token file, absolute", kServer, "    tokenFile: $DIR/token.txt\n",
       "10.0.0.1:6443 tokenFile=$DIR/token.txt"},
      {"client cert and CA data", std::string(kServer) + "    certificate-authority-data: $CA64\n",
       "    client-certificate-data: $CERT64\n    client-key-data: $KEY64\n",
       "10.0.0.1:6443 ca=test cert=test"},
      {"relative file paths", std::string(kServer) + "    certificate-authority: ca.crt\n",
       "    client-certificate: sub/client.crt\n    client-key: sub/client.key\n",
       "10.0.0.1:6443 ca=test cert=test"},
      {"IPv6, default port, server name",
       "    server: https://[fd00::1]\n    tls-server-name: api.internal\n", "    token: t\n",
       "fd00::1:443 sni=api.internal token=t"},
      {"insecure, trailing slash",
       "    server: https://api.example.com:8443/\n    insecure-skip-tls-verify: true\n",
       "    {}\n", "api.example.com:8443 insecure"},
      {"exec: null is no plugin", kServer, "    token: t\n    exec: null\n",
       "10.0.0.1:6443 token=t"},
  };
  for (const auto& c : cases) EXPECT_EQ(Load(OneContext(c.cluster, c.user)), c.want) << c.name;
}

TEST_F(KubeConfigTest, ErrorsNameTheFileAndTheField) {
  struct Case {
    std::string name, cluster, user, want;
  } cases[] = {
      {"bad base64", std::string(kServer) + "    certificate-authority-data: '!!!!'\n",
       "    token: t\n",
       "error: $DIR/kubeconfig: clusters[0].cluster.certificate-authority-data: invalid base64: "
       "unexpected '!' at offset 0"},
      {"CA data is not PEM", std::string(kServer) + "    certificate-authority-data: $NOTPEM64\n",
       "    token: t\n",
       "error: $DIR/kubeconfig: clusters[0].cluster.certificate-authority-data: no PEM "
       "certificate found"},
      {"missing key file", kServer,
       "    client-certificate: sub/client.crt\n    client-key: k.pem\n",
       "error: $DIR/kubeconfig: users[0].user.client-key: cannot read $DIR/k.pem: No such file or "
       "directory"},
      {"missing token file", kServer, "    tokenFile: nope\n",
       "error: $DIR/kubeconfig: users[0].user.tokenFile: cannot read $DIR/nope: No such file or "
       "directory"},
      {"key of another certificate", kServer,
       "    client-certificate-data: $CERT64\n    client-key-data: $OTHERKEY64\n",
       "error: $DIR/kubeconfig: users[0].user.client-key-data: does not match the client "
       "certificate"},
      {"certificate without key", kServer, "    client-certificate-data: $CERT64\n",
       "error: $DIR/kubeconfig: users[0].user: client-certificate and client-key go together; "
       "only one is set"},
      {"exec plugin", kServer, "    exec:\n      command: aws\n",
       "error: $DIR/kubeconfig: users[0].user.exec: credential plugins (exec) are not supported; "
       "use a token, tokenFile or client certificate"},
      {"auth provider", kServer, "    auth-provider:\n      name: oidc\n",
       "error: $DIR/kubeconfig: users[0].user.auth-provider: auth-provider plugins are not "
       "supported; use a token, tokenFile or client certificate"},
      {"basic auth", kServer, "    username: admin\n    password: x\n",
       "error: $DIR/kubeconfig: users[0].user.username: basic authentication is not supported; "
       "use a token, tokenFile or client certificate"},
      {"insecure with a CA",
       std::string(kServer) +
           "    certificate-authority: ca.crt\n    insecure-skip-tls-verify: true\n",
       "    token: t\n",
       "error: $DIR/kubeconfig: clusters[0].cluster.insecure-skip-tls-verify: cannot be true "
       "together with a certificate authority"},
      {"insecure not a bool", std::string(kServer) + "    insecure-skip-tls-verify: maybe\n",
       "    token: t\n",
       "error: $DIR/kubeconfig: clusters[0].cluster.insecure-skip-tls-verify: must be true or "
       "false"},
      {"plain http", "    server: http://10.0.0.1\n", "    token: t\n",
       "error: $DIR/kubeconfig: clusters[0].cluster.server: plain http is not supported; use "
       "https"},
      {"no server", "    insecure-skip-tls-verify: true\n", "    token: t\n",
       "error: $DIR/kubeconfig: clusters[0].cluster.server: missing"},
      {"token is a map", kServer, "    token: {a: b}\n",
       "error: $DIR/kubeconfig: users[0].user.token: must be a string"},
      {"proxy", std::string(kServer) + "    proxy-url: http://proxy:3128\n", "    token: t\n",
       "error: $DIR/kubeconfig: clusters[0].cluster.proxy-url: proxies are not supported"},
  };
  for (const auto& c : cases) EXPECT_EQ(Load(OneContext(c.cluster, c.user)), c.want) << c.name;
}

constexpr char kTwoContexts[] = R"(current-context: a
contexts:
- name: a
  context: {cluster: ca, user: ua}
- name: b
  context: {cluster: cb, user: ub}
clusters:
- name: ca
  cluster: {server: "https://a.example:6443"}
- name: cb
  cluster: {server: "https://b.example:6443"}
users:
- name: ua
  user: {token: token-a}
- name: ub
  user: {token: token-b}
)";

TEST_F(KubeConfigTest, ChoosesTheNamedOrTheCurrentContext) {
  EXPECT_EQ(Load(kTwoContexts), "a.example:6443 token=token-a");
  EXPECT_EQ(Load(kTwoContexts, "b"), "b.example:6443 token=token-b");
  EXPECT_EQ(Load(kTwoContexts, "nope"),
            "error: $DIR/kubeconfig: contexts: no entry named \"nope\" (there are: a, b)");
  EXPECT_EQ(Load("contexts: []\n"),
            "error: $DIR/kubeconfig: no current-context is set and no context was named");
  EXPECT_EQ(Load("current-context: a\ncontexts:\n- name: a\n  context: {cluster: gone}\n"),
            "error: $DIR/kubeconfig: clusters: no entry named \"gone\"");
}

TEST_F(KubeConfigTest, UnreadableOrInvalidFiles) {
  auto missing = LoadKubeconfig(dir_.File("absent"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "cannot read " + dir_.File("absent") + ": No such file or directory");
  std::string bad = Load("contexts: [unclosed\n");
  EXPECT_TRUE(bad.starts_with("error: $DIR/kubeconfig: yaml-cpp: error at line")) << bad;
  EXPECT_EQ(Load("- just\n- a list\n"),
            "error: $DIR/kubeconfig: not a kubeconfig (expected a YAML map)");
}

TEST(KubeConfigServerUrl, ParsesHostAndPort) {
  struct Case {
    std::string url, want;
  } cases[] = {
      {"https://10.0.0.1:6443", "10.0.0.1 6443"},
      {"https://api.example.com", "api.example.com 443"},
      {"https://api.example.com/", "api.example.com 443"},
      {"https://[::1]:8443", "::1 8443"},
      {"https://[fd00::1]", "fd00::1 443"},
      {"http://10.0.0.1", "error: plain http is not supported; use https"},
      {"10.0.0.1:6443", "error: must be an https:// URL, got \"10.0.0.1:6443\""},
      {"https://h/k8s/clusters/c-1",
       "error: a path after the host (\"/k8s/clusters/c-1\") is not supported"},
      {"https://fd00::1:6443", "error: an IPv6 address must be in brackets"},
      {"https://[::1", "error: unterminated [IPv6] address"},
      {"https://h:0", "error: bad port \"0\""},
      {"https://h:", "error: bad port \"\""},
      {"https://h:70000", "error: bad port \"70000\""},
      {"https://:443", "error: missing host"},
      {"https://user@h", "error: user info is not supported"},
  };
  for (const auto& c : cases) {
    auto got = ParseServerUrl(c.url);
    std::string rendered =
        got ? got->first + " " + std::to_string(got->second) : "error: " + got.error().message;
    EXPECT_EQ(rendered, c.want) << c.url;
  }
}

// Sets environment variables for a test and puts the old values back.
class EnvGuard {
 public:
  void Set(const char* name, const char* value) {
    const char* old = getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~EnvGuard() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      it->second ? setenv(it->first.c_str(), it->second->c_str(), 1) : unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(KubeConfigInCluster, ReadsTheServiceAccount) {
  TempDir root;
  const std::string sa = "var/run/secrets/kubernetes.io/serviceaccount/";
  root.Write(sa + "token", "sa-token");
  root.Write(sa + "ca.crt", testing::SharedTestCerts().bundle.caCertPem);
  EnvGuard env;
  env.Set("KUBERNETES_SERVICE_HOST", "fd00::1");
  env.Set("KUBERNETES_SERVICE_PORT", "443");
  auto config = InClusterConfig(root.path());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->host, "fd00::1");
  EXPECT_EQ(config->port, 443);
  EXPECT_EQ(config->tokenFile, root.path() + "/" + sa + "token");
  EXPECT_TRUE(config->token.empty());  // read per request, as it rotates
  EXPECT_EQ(config->caPem, testing::SharedTestCerts().bundle.caCertPem);
}

TEST(KubeConfigInCluster, SaysWhatIsMissing) {
  TempDir root;
  const std::string sa = "var/run/secrets/kubernetes.io/serviceaccount/";
  std::string dir = root.path() + "/" + sa;
  struct Case {
    const char* host;
    const char* port;
    bool token, ca;
    std::string want;
  } cases[] = {
      {nullptr, "443", true, true,
       "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not "
       "running in a pod? give cluster.kubeconfig instead)"},
      {"10.96.0.1", "https", true, true,
       "in-cluster config: KUBERNETES_SERVICE_PORT=\"https\" is not a port"},
      {"10.96.0.1", "443", false, true,
       "in-cluster config: service account token: cannot read " + dir +
           "token: No such file or directory"},
      {"10.96.0.1", "443", true, false,
       "in-cluster config: service account CA: cannot read " + dir +
           "ca.crt: No such file or directory"},
  };
  for (const auto& c : cases) {
    std::filesystem::remove_all(root.path() + "/var");
    if (c.token) root.Write(sa + "token", "t");
    if (c.ca) root.Write(sa + "ca.crt", testing::SharedTestCerts().bundle.caCertPem);
    EnvGuard env;
    env.Set("KUBERNETES_SERVICE_HOST", c.host);
    env.Set("KUBERNETES_SERVICE_PORT", c.port);
    auto config = InClusterConfig(root.path());
    ASSERT_FALSE(config) << c.want;
    EXPECT_EQ(config.error().message, c.want);
  }
}

}  // namespace
}  // namespace gpugate::cluster
