// The real `gpugate serve` over real TLS: what the API server sees.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/ssl.h>

#include <nlohmann/json.hpp>

#include "gpugate_process.h"
#include "review_builder.h"
#include "test_paths.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new GpugateServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  // POSTs a review and returns the response review; fails the test on a non-200 answer.
  static json Review(const std::string& path, const json& review) {
    auto res = server_->Client()->Post(path, review.dump(), "application/json");
    EXPECT_TRUE(res) << "no response: " << httplib::to_string(res.error());
    if (!res) return nullptr;
    EXPECT_EQ(res->status, 200) << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    return json::parse(res->body);
  }

  static GpugateServer* server_;
};

GpugateServer* ServerTest::server_ = nullptr;

TEST_F(ServerTest, ProbesAndMetricsAnswerOverTls) {
  auto client = server_->Client();
  auto health = client->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto ready = client->Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  auto metrics = client->Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("# TYPE gpugate_admission_duration_seconds histogram"),
            std::string::npos);
}

TEST_F(ServerTest, MutatePatchesGpuPodAndSecondPassAddsNothing) {
  json pod = GpuPod(
      "train", json::array({{{"tencent.com/vcuda-core", "50"}, {"tencent.com/vcuda-memory", "4"}},
                            {{"volcano.sh/gpu-memory", "1024"}}}));
  pod["spec"]["tolerations"] = json::array({{{"key", "other"}, {"operator", "Exists"}}});
  json response = Review("/mutate", MakeReview(pod));
  ASSERT_TRUE(response["response"]["allowed"].get<bool>()) << response.dump();
  EXPECT_EQ(response["response"]["uid"], "3f4c2a1e-0000-4000-8000-000000000001");
  json patch = DecodedPatch(response);
  ASSERT_TRUE(patch.is_array()) << response.dump();

  json patched = pod.patch(patch);
  EXPECT_EQ(patched["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(patched["metadata"]["annotations"]["tencent.com/vcuda-core-limit"], "50");
  json want = json::array(
      {{{"key", "other"}, {"operator", "Exists"}},
       {{"key", "tencent.com/vcuda-core"}, {"operator", "Exists"}, {"effect", "NoSchedule"}},
       {{"key", "tencent.com/vcuda-memory"}, {"operator", "Exists"}, {"effect", "NoSchedule"}},
       {{"key", "volcano.sh/gpu-memory"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});
  EXPECT_EQ(patched["spec"]["tolerations"], want);

  // reinvocationPolicy IfNeeded: a second pass over gpugate's own output changes nothing.
  json again = Review("/mutate", MakeReview(patched));
  EXPECT_TRUE(again["response"]["allowed"].get<bool>());
  EXPECT_FALSE(again["response"].contains("patch")) << again.dump();
}

TEST_F(ServerTest, ValidateDeniesBadTemplateInsideCustomResource) {
  json container = {{"name", "trainer"}, {"resources", {{"limits", {{"nvidia.com/gpu", "0.5"}}}}}};
  json worker = {{"replicas", 4},
                 {"template", {{"spec", {{"containers", json::array({container})}}}}}};
  json job = {{"apiVersion", "kubeflow.org/v1"},
              {"kind", "PyTorchJob"},
              {"metadata", {{"name", "llm"}, {"namespace", "team-a"}}},
              {"spec", {{"pytorchReplicaSpecs", {{"Worker", worker}}}}}};
  ReviewOptions o{.group = "kubeflow.org", .kind = "PyTorchJob", .resource = "pytorchjobs"};
  json response = Review("/validate", MakeReview(job, o));
  EXPECT_FALSE(response["response"]["allowed"].get<bool>());
  EXPECT_EQ(response["response"]["status"]["code"], 403);
  EXPECT_EQ(response["response"]["status"]["message"],
            "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0] \"trainer\": "
            "nvidia.com/gpu limit \"0.5\" must be a whole number of GPUs");
}

TEST_F(ServerTest, ResponseUsesTheRequestsApiVersion) {
  ReviewOptions o{.apiVersion = "admission.k8s.io/v1beta1", .uid = "beta-uid"};
  json response =
      Review("/validate", MakeReview(GpuPod("p", json::array({{{"nvidia.com/gpu", "1"}}})), o));
  EXPECT_EQ(response["apiVersion"], "admission.k8s.io/v1beta1");
  EXPECT_EQ(response["kind"], "AdmissionReview");
  EXPECT_EQ(response["response"]["uid"], "beta-uid");
  EXPECT_TRUE(response["response"]["allowed"].get<bool>());
}

TEST_F(ServerTest, BadRequestsGetClearClientErrorsAndServerStaysUp) {
  struct Case {
    std::string name, method, path, contentType, body;
    int status;
    std::string bodyHas;
  } cases[] = {
      {"malformed JSON", "POST", "/validate", "application/json", "{\"apiVersion\":", 400,
       "not valid JSON"},
      {"array body", "POST", "/validate", "application/json", "[1,2]", 400, "JSON object"},
      {"not a review", "POST", "/mutate", "application/json", R"({"kind":"Pod"})", 400,
       "apiVersion must be admission.k8s.io/v1"},
      {"missing uid", "POST", "/validate", "application/json",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})", 400,
       "request.uid must be a non-empty string"},
      {"wrong content type", "POST", "/validate", "text/plain", "{}", 415, "application/json"},
      {"wrong method", "GET", "/validate", "", "", 405, "POST"},
      {"unknown route", "POST", "/nope", "application/json", "{}", 404, ""},
      {"oversized body", "POST", "/validate", "application/json", std::string(9 << 20, ' '), 413,
       ""},
  };
  for (const auto& c : cases) {
    auto client = server_->Client();
    auto res = c.method == "GET" ? client->Get(c.path)
                                 : client->Post(c.path, c.body, c.contentType.c_str());
    ASSERT_TRUE(res) << c.name << ": " << httplib::to_string(res.error());
    EXPECT_EQ(res->status, c.status) << c.name << ": " << res->body;
    EXPECT_NE(res->body.find(c.bodyHas), std::string::npos) << c.name << ": " << res->body;
  }
  auto health = server_->Client()->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ServerTest, WrongShapeObjectGetsDeniedReviewNamingTheField) {
  json pod = GpuPod("p", json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["spec"]["containers"][0]["resources"]["limits"] = json::array({"nvidia.com/gpu"});
  json response = Review("/validate", MakeReview(pod));
  EXPECT_FALSE(response["response"]["allowed"].get<bool>());
  // The limits are unreadable, so the request also lacks its limit: both are reported, shape first.
  EXPECT_EQ(response["response"]["status"]["message"],
            "spec.containers[0].resources.limits: must be object, got array; "
            "spec.containers[0] \"c0\": nvidia.com/gpu request \"1\" has no limit; "
            "set the limit to the same value");
}

TEST_F(ServerTest, EveryFieldFixturesDecode) {
  // Kubernetes' own every-field objects, with a GPU added, pass through without a decode error.
  struct Case {
    const char* file;
    const char* group;
    const char* kind;
    const char* specPointer;  // where the pod spec with containers is
  } cases[] = {
      {"core.v1.Pod.json", "", "Pod", "/spec"},
      {"apps.v1.Deployment.json", "apps", "Deployment", "/spec/template/spec"},
      {"batch.v1.CronJob.json", "batch", "CronJob", "/spec/jobTemplate/spec/template/spec"},
  };
  for (const auto& c : cases) {
    json object = json::parse(ReadFile(std::string(GPUGATE_FIXTURES_DIR) + "/" + c.file));
    json& container = object[json::json_pointer(std::string(c.specPointer) + "/containers/0")];
    container["resources"]["limits"]["nvidia.com/gpu"] = "3";
    container["resources"]["requests"] = {{"nvidia.com/gpu", "3"}};
    ReviewOptions o{.group = c.group, .kind = c.kind};
    json response = Review("/validate", MakeReview(object, o));
    ASSERT_TRUE(response.is_object()) << c.file;
    // The fixture fills every field (privileged containers too), so rules may deny; a shape
    // error ("must be object, got string") must not be among the reasons.
    std::string message = response["response"].value("/status/message"_json_pointer, "");
    EXPECT_EQ(message.find(", got "), std::string::npos) << c.file << ": " << message;
    EXPECT_NE(message.find("privileged container"), std::string::npos) << c.file << ": " << message;
  }
}

TEST_F(ServerTest, LogsOneJsonLinePerDecision) {
  ReviewOptions o{.uid = "log-uid-1"};
  Review("/validate", MakeReview(GpuPod("logged", json::array({{{"nvidia.com/gpu", "2"}}})), o));
  ASSERT_TRUE(server_->WaitForLog("log-uid-1", std::chrono::seconds(5)));
  std::string logs = server_->Logs();
  std::string line = logs.substr(logs.rfind('\n', logs.find("log-uid-1")) + 1);
  line = line.substr(0, line.find('\n'));
  json entry = json::parse(line);
  EXPECT_EQ(entry["msg"], "decision");
  EXPECT_EQ(entry["uid"], "log-uid-1");
  EXPECT_EQ(entry["kind"], "Pod");
  EXPECT_EQ(entry["namespace"], "team-a");
  EXPECT_EQ(entry["name"], "logged");
  EXPECT_EQ(entry["operation"], "CREATE");
  EXPECT_EQ(entry["decision"], "allowed");
  EXPECT_TRUE(entry["micros"].is_number_integer());
}

TEST_F(ServerTest, LogsThePodsNameWhenTheRequestNamesNone) {
  // Each item of a DeleteCollection (what deleting a namespace sends) is reviewed as a DELETE
  // whose request has no name (Go's omitempty leaves it out): the pod is named by the old object.
  ReviewOptions o{.operation = "DELETE", .uid = "log-uid-collection"};
  json review = MakeReview(nullptr, o);
  review["request"].erase("name");
  review["request"]["oldObject"] = GpuPod("collected", json::array({{{"nvidia.com/gpu", "1"}}}));
  json response = Review("/validate", review);
  EXPECT_TRUE(response["response"]["allowed"].get<bool>());
  ASSERT_TRUE(server_->WaitForLog("log-uid-collection", std::chrono::seconds(5)));
  std::string logs = server_->Logs();
  std::string line = logs.substr(logs.rfind('\n', logs.find("log-uid-collection")) + 1);
  json entry = json::parse(line.substr(0, line.find('\n')));
  EXPECT_EQ(entry["operation"], "DELETE");
  EXPECT_EQ(entry["name"], "collected");
}

// Connects with raw OpenSSL capped at `maxVersion`; true when the handshake succeeds.
bool HandshakeWithMaxVersion(int port, int maxVersion) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);
  SSL_CTX_set_max_proto_version(ctx, maxVersion);
  SSL_CTX_set_security_level(ctx, 0);  // let the client offer old versions at all
  BIO* bio = BIO_new_ssl_connect(ctx);
  BIO_set_conn_hostname(bio, ("127.0.0.1:" + std::to_string(port)).c_str());
  bool ok = BIO_do_connect(bio) == 1 && BIO_do_handshake(bio) == 1;
  BIO_free_all(bio);
  SSL_CTX_free(ctx);
  return ok;
}

TEST_F(ServerTest, RefusesTlsBelow12) {
  EXPECT_FALSE(HandshakeWithMaxVersion(server_->port(), TLS1_1_VERSION));
  EXPECT_TRUE(HandshakeWithMaxVersion(server_->port(), TLS1_2_VERSION));
  EXPECT_TRUE(HandshakeWithMaxVersion(server_->port(), TLS1_3_VERSION));
}

TEST_F(ServerTest, PlainHttpOnTheTlsPortIsRefused) {
  httplib::Client plain("127.0.0.1", server_->port());
  plain.set_read_timeout(2, 0);
  auto res = plain.Get("/healthz");
  EXPECT_TRUE(!res || res->status >= 400);
  auto health = server_->Client()->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST(ServeStartup, BadConfigFailsWithFileKeyAndReason) {
  TempDir dir;
  dir.Write("bad.yaml", "mutation:\n  coreLimit: 500\n");
  Exit run = RunGpugate({"serve", "--config", dir.File("bad.yaml")});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find("bad.yaml:2: mutation.coreLimit"), std::string::npos) << run.output;
}

TEST(ServeStartup, MissingCertificateNamesTheFile) {
  Exit run = RunGpugate({"serve", "--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent/tls.crt",
                         "--tls-key", "/nonexistent/tls.key"});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.output.find("tls.certFile /nonexistent/tls.crt"), std::string::npos) << run.output;
}

TEST(ServeStartup, SigtermStopsCleanly) {
  GpugateServer server;
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace gpugate::testing
