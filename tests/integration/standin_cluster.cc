#include "standin_cluster.h"

#include <gtest/gtest.h>
#include <httplib.h>

namespace gpugate::testing {

using nlohmann::json;

StandInCluster::StandInCluster(StandInClusterOptions options) {
  Exit certs = RunGpugate({"certs", "--out", dir_.path(), "--host", "127.0.0.1"});
  EXPECT_EQ(certs.code, 0) << certs.output;
  options.api.certFile = dir_.File("tls.crt");
  options.api.keyFile = dir_.File("tls.key");
  api_ = std::make_unique<StandInApiServer>(std::move(options.api));
  int port = api_->Start();
  EXPECT_GT(port, 0);
  dir_.Write("kubeconfig",
             "apiVersion: v1\nkind: Config\nclusters:\n- name: standin\n  cluster:\n"
             "    server: https://127.0.0.1:" +
                 std::to_string(port) + "\n    certificate-authority: " + dir_.File("ca.crt") +
                 "\nusers:\n- name: gpugate\n  user:\n    token: stand-in-token\n"
                 "contexts:\n- name: standin\n  context: {cluster: standin, user: gpugate}\n"
                 "current-context: standin\n");
  dir_.Write("gpugate.yaml", "cluster:\n  enabled: true\n  kubeconfig: " + dir_.File("kubeconfig") +
                                 "\n" + options.timing + options.configExtra);
}

GpugateServer& StandInCluster::StartReplica(const std::string& configName) {
  replicas_.push_back(
      std::make_unique<GpugateServer>(std::vector<std::string>{"--config", dir_.File(configName)}));
  return *replicas_.back();
}

GpugateServer& StandInCluster::AddReplica() {
  GpugateServer& r = StartReplica("gpugate.yaml");
  EXPECT_TRUE(Eventually(
      [&] {
        auto res = r.Client()->Get("/readyz");
        return res && res->status == 200;
      },
      kClusterWait))
      << r.Logs();
  return r;
}

void StandInCluster::LabelNamespace(const std::string& name, json labels) {
  labels["kubernetes.io/metadata.name"] = name;
  json ns = {{"apiVersion", "v1"},
             {"kind", "Namespace"},
             {"metadata", {{"name", name}, {"labels", std::move(labels)}}}};
  const std::string path = "/api/v1/namespaces/" + name;
  if (api_->Get(path).is_null()) {
    api_->Create("/api/v1/namespaces", std::move(ns));
  } else {
    api_->Update(path, std::move(ns));
  }
}

void StandInCluster::LimitGpus(const std::string& ns, int gpus) {
  api_->Create("/api/v1/namespaces/" + ns + "/resourcequotas",
               {{"apiVersion", "v1"},
                {"kind", "ResourceQuota"},
                {"metadata", {{"name", "gpus"}}},
                {"spec", {{"hard", {{"requests.nvidia.com/gpu", std::to_string(gpus)}}}}}});
}

}  // namespace gpugate::testing
