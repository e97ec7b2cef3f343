// The shipped manifests as an operator applies them: the output of `kubectl kustomize` for the
// base (cluster mode), the cert-manager, local-ledger and no-match-conditions overlays, checked
// against what docs/deployment.md and docs/cluster.md promise (the objects, the Deployment's
// hardening, two replicas sharing the GPUQuota records or one with its local journal, the
// CustomResourceDefinition and the exact RBAC cluster mode uses, the webhook registrations and
// their matchConditions, a config gpugate itself accepts) and against each other (Secret,
// ConfigMap, ServiceAccount, PersistentVolumeClaim, Service, PodDisruptionBudget and Certificate
// wiring). Needs kubectl 1.22 or later (kubectl.h: on PATH, in .tools/bin from `make kubectl`, or
// named by GPUGATE_KUBECTL); without one every test is skipped, saying so.
// GPUGATE_MANIFESTS_DIR=DIR renders a copy of manifests/ instead, e.g. a deliberately broken one,
// to see a check fail.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_ledger.h"
#include "cluster/gpu_quota_record.h"
#include "common/result.h"
#include "config/config.h"
#include "kubectl.h"
#include "test_paths.h"
#include "webhook_rules.h"

namespace gpugate::testing {
namespace {

constexpr std::string_view kNamespace = "gpugate-system";
constexpr std::string_view kTlsSecret = "gpugate-tls";  // written by tools/install-certs.sh
constexpr std::string_view kConfigMap = "gpugate-config";
constexpr std::string_view kStateClaim = "gpugate-state";  // holds quota.stateFile (local ledger)
constexpr std::string_view kServiceAccount = "gpugate";
constexpr std::string_view kGpuQuotaCrd = "gpuquotas.gpugate.io";
// The host the API server dials for clientConfig.service gpugate-system/gpugate.
constexpr std::string_view kServiceHost = "gpugate.gpugate-system.svc";
constexpr std::string_view kInjectCaFrom = "cert-manager.io/inject-ca-from";

// ---- Running kubectl ----------------------------------------------------------------------------

// Runs `kubectl kustomize DIR` with UsableKubectl(): the rendered YAML, or what went wrong.
Result<std::string> Kustomize(const std::string& dir) {
  const Result<Kubectl>& kubectl = UsableKubectl();
  if (!kubectl) return std::unexpected(kubectl.error());
  return RunKubectl(kubectl->path, {"kustomize", dir});
}

// ---- Reading YAML without exceptions -----------------------------------------------------------
// Missing keys and wrong shapes read as undefined nodes and empty strings, so a broken manifest
// fails an expectation with its value instead of throwing from yaml-cpp.

YAML::Node Undefined() { return YAML::Node(YAML::NodeType::Undefined); }

// The value under one key, taken whole (for keys with dots: annotations, `config.yaml`).
YAML::Node Child(const YAML::Node& node, std::string_view key) {
  if (!node.IsDefined() || !node.IsMap()) return Undefined();
  const YAML::Node child = node[std::string(key)];
  return child.IsDefined() ? child : Undefined();
}

// The value under a dotted path of keys, e.g. "spec.template.spec".
YAML::Node At(const YAML::Node& node, std::string_view path) {
  const size_t dot = path.find('.');
  const YAML::Node child = Child(node, path.substr(0, dot));
  return dot == std::string_view::npos ? child : At(child, path.substr(dot + 1));
}

std::string Str(const YAML::Node& node) {
  return node.IsDefined() && node.IsScalar() ? node.Scalar() : "";
}

std::vector<YAML::Node> Items(const YAML::Node& node) {
  std::vector<YAML::Node> items;
  if (node.IsDefined() && node.IsSequence()) {
    for (const YAML::Node& item : node) items.push_back(item);
  }
  return items;
}

std::vector<std::string> Strs(const YAML::Node& node) {
  std::vector<std::string> out;
  for (const YAML::Node& item : Items(node)) out.push_back(Str(item));
  return out;
}

std::optional<long long> Int(const YAML::Node& node) {
  const std::string s = Str(node);
  long long value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The first item of a list whose `field` is `value`; undefined when none is.
YAML::Node ItemWith(const YAML::Node& list, std::string_view field, std::string_view value) {
  for (const YAML::Node& item : Items(list)) {
    if (Str(At(item, field)) == value) return item;
  }
  return Undefined();
}

// True when every label the selector's matchLabels asks for is on `labels` (and it asks for one).
bool Selects(const YAML::Node& matchLabels, const YAML::Node& labels) {
  if (!matchLabels.IsDefined() || !matchLabels.IsMap() || matchLabels.size() == 0) return false;
  for (const auto& kv : matchLabels) {
    if (Str(Child(labels, kv.first.Scalar())) != Str(kv.second)) return false;
  }
  return true;
}

// ---- The rendered objects ----------------------------------------------------------------------

struct Rendering {
  std::vector<YAML::Node> objects;

  YAML::Node Find(std::string_view kind, std::string_view ns, std::string_view name) const {
    for (const YAML::Node& o : objects) {
      if (Str(At(o, "kind")) == kind && Str(At(o, "metadata.namespace")) == ns &&
          Str(At(o, "metadata.name")) == name) {
        return o;
      }
    }
    return Undefined();
  }
  std::vector<YAML::Node> OfKind(std::string_view kind) const {
    std::vector<YAML::Node> out;
    for (const YAML::Node& o : objects) {
      if (Str(At(o, "kind")) == kind) out.push_back(o);
    }
    return out;
  }
};

Result<Rendering> Render(const std::string& dir) {
  auto yaml = Kustomize(dir);
  if (!yaml) return std::unexpected(yaml.error());
  try {
    Rendering rendering;
    for (const YAML::Node& doc : YAML::LoadAll(*yaml)) {
      if (doc.IsMap()) rendering.objects.push_back(doc);
    }
    return rendering;
  } catch (const YAML::Exception& e) {
    return Fail("`kubectl kustomize " + dir + "` printed YAML that does not parse: " + e.what());
  }
}

// Each directory is rendered once per test run.
const Result<Rendering>& Rendered(const std::string& dir) {
  static std::map<std::string, Result<Rendering>> cache;
  auto it = cache.find(dir);
  if (it == cache.end()) it = cache.emplace(dir, Render(dir)).first;
  return it->second;
}

std::string ManifestsDir() {
  const char* dir = std::getenv("GPUGATE_MANIFESTS_DIR");
  return dir != nullptr ? dir : std::string(GPUGATE_SOURCE_DIR) + "/manifests";
}

// "apiVersion Kind namespace/name", or "apiVersion Kind name" for a cluster-scoped object.
std::string Identity(const YAML::Node& o) {
  const std::string ns = Str(At(o, "metadata.namespace"));
  return Str(At(o, "apiVersion")) + " " + Str(At(o, "kind")) + " " + (ns.empty() ? "" : ns + "/") +
         Str(At(o, "metadata.name"));
}

// ---- Fixtures ----------------------------------------------------------------------------------

class RenderedManifests : public ::testing::Test {
 protected:
  // Renders manifests/<subdir>; a fatal failure (so the test body is skipped) when that fails.
  // Without a kubectl that can render (kubectl.h), the test is skipped instead, saying why.
  void RenderOrFail(const std::string& subdir) {
    if (const Result<Kubectl>& kubectl = UsableKubectl(); !kubectl) {
      GTEST_SKIP() << kubectl.error().message;
    }
    const Result<Rendering>& rendered = Rendered(ManifestsDir() + subdir);
    ASSERT_TRUE(rendered) << rendered.error().message;
    rendering_ = &*rendered;
  }

  // The object; the test fails when it is not rendered. Cluster-scoped objects take ns "".
  YAML::Node Object(std::string_view kind, std::string_view name,
                    std::string_view ns = kNamespace) {
    YAML::Node o = rendering_->Find(kind, ns, name);
    EXPECT_TRUE(o.IsDefined()) << kind << " " << ns << "/" << name << " is not rendered";
    return o;
  }
  YAML::Node PodSpec() { return At(Object("Deployment", "gpugate"), "spec.template.spec"); }
  YAML::Node GpugateContainer() { return ItemWith(At(PodSpec(), "containers"), "name", "gpugate"); }

  // The gpugate container's mount of the volume whose `sourceField` (e.g. "secret.secretName")
  // is `source`; undefined when there is none.
  YAML::Node MountOf(std::string_view sourceField, std::string_view source) {
    const YAML::Node volume = ItemWith(At(PodSpec(), "volumes"), sourceField, source);
    if (!volume.IsDefined()) return Undefined();
    return ItemWith(At(GpugateContainer(), "volumeMounts"), "name", Str(At(volume, "name")));
  }

  Result<config::Config> ShippedConfig() {
    const std::string text = Str(Child(At(Object("ConfigMap", kConfigMap), "data"), "config.yaml"));
    if (text.empty()) return Fail("ConfigMap gpugate-config has no data key config.yaml");
    return config::ParseConfig(text, "configmap gpugate-config");
  }

  // Whether gpugate's pods get a service account token, as the API server decides it: the pod's
  // automountServiceAccountToken, else its ServiceAccount's, else "true".
  std::string TokenMounted() {
    const std::string own = Str(At(PodSpec(), "automountServiceAccountToken"));
    if (!own.empty()) return own;
    const YAML::Node account = Object("ServiceAccount", Str(At(PodSpec(), "serviceAccountName")));
    const std::string inherited = Str(At(account, "automountServiceAccountToken"));
    return inherited.empty() ? "true" : inherited;
  }

  const Rendering* rendering_ = nullptr;
};

// How the rendered gpugate keeps its quota ledger (docs/deployment.md).
enum class Mode {
  kCluster,      // GPUQuota objects in the API, shared by several replicas (docs/cluster.md)
  kLocalLedger,  // one replica, its journal on a PersistentVolumeClaim (docs/quota.md)
};

struct Kustomization {
  std::string name;    // test name suffix
  std::string subdir;  // under manifests/
  Mode mode;
  std::vector<std::string> objects;  // Identity() of every object it renders, nothing more
  bool matchConditions = true;       // the webhooks filter requests with CEL (Kubernetes 1.28+)
};

// Test names and failures show the kustomization by name, not as bytes.
void PrintTo(const Kustomization& k, std::ostream* os) { *os << k.name; }

std::vector<Kustomization> Kustomizations() {
  const std::vector<std::string> base = {
      "v1 Namespace gpugate-system",
      "apiextensions.k8s.io/v1 CustomResourceDefinition gpuquotas.gpugate.io",
      "apiextensions.k8s.io/v1 CustomResourceDefinition gpubudgets.gpugate.io",
      "v1 ServiceAccount gpugate-system/gpugate",
      "rbac.authorization.k8s.io/v1 ClusterRole gpugate",
      "rbac.authorization.k8s.io/v1 ClusterRoleBinding gpugate",
      "rbac.authorization.k8s.io/v1 ClusterRole gpugate-budget-reader",
      "rbac.authorization.k8s.io/v1 ClusterRoleBinding gpugate-budget-reader",
      "v1 ConfigMap gpugate-system/gpugate-config",
      "apps/v1 Deployment gpugate-system/gpugate",
      "v1 Service gpugate-system/gpugate",
      "policy/v1 PodDisruptionBudget gpugate-system/gpugate",
      "admissionregistration.k8s.io/v1 MutatingWebhookConfiguration gpugate",
      "admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration gpugate",
  };
  std::vector<std::string> certManager = base;
  certManager.insert(certManager.end(),
                     {
                         "cert-manager.io/v1 Issuer gpugate-system/gpugate-selfsigned",
                         "cert-manager.io/v1 Certificate gpugate-system/gpugate-ca",
                         "cert-manager.io/v1 Issuer gpugate-system/gpugate-ca",
                         "cert-manager.io/v1 Certificate gpugate-system/gpugate-serving",
                     });
  // The local ledger calls no API: no ClusterRole gpugate or its binding, and a claim for its
  // journal. The CustomResourceDefinitions stay (inert; see the overlay's kustomization.yaml), and
  // so does the read-only role that lets users read GPUBudget objects.
  std::vector<std::string> localLedger;
  for (const std::string& o : base) {
    if (!o.ends_with(" ClusterRole gpugate") && !o.ends_with(" ClusterRoleBinding gpugate")) {
      localLedger.push_back(o);
    }
  }
  localLedger.push_back("v1 PersistentVolumeClaim gpugate-system/gpugate-state");
  return {{"Base", "", Mode::kCluster, base},
          {"CertManager", "/overlays/cert-manager", Mode::kCluster, certManager},
          {"LocalLedger", "/overlays/local-ledger", Mode::kLocalLedger, localLedger},
          {"NoMatchConditions", "/overlays/no-match-conditions", Mode::kCluster, base,
           /*matchConditions=*/false}};
}

std::vector<Kustomization> KustomizationsIn(Mode mode) {
  std::vector<Kustomization> out;
  for (const Kustomization& k : Kustomizations()) {
    if (k.mode == mode) out.push_back(k);
  }
  return out;
}

// Checks that hold for every kustomization an operator may apply.
class Manifests : public RenderedManifests, public ::testing::WithParamInterface<Kustomization> {
 protected:
  void SetUp() override { RenderOrFail(GetParam().subdir); }
};

INSTANTIATE_TEST_SUITE_P(, Manifests, ::testing::ValuesIn(Kustomizations()),
                         [](const auto& info) { return info.param.name; });

// ---- Objects -----------------------------------------------------------------------------------

TEST_P(Manifests, RendersExactlyTheDocumentedObjects) {
  std::vector<std::string> got;
  for (const YAML::Node& o : rendering_->objects) got.push_back(Identity(o));
  std::vector<std::string> want = GetParam().objects;
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  std::vector<std::string> missing, unexpected;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(unexpected));
  EXPECT_TRUE(missing.empty()) << "not rendered: " << ::testing::PrintToString(missing);
  EXPECT_TRUE(unexpected.empty()) << "not documented: " << ::testing::PrintToString(unexpected);
}

// ---- The Deployment ----------------------------------------------------------------------------

// A securityContext field as Kubernetes applies it: the container's value, else the pod's.
std::string EffectiveSecurity(const YAML::Node& podSpec, const YAML::Node& container,
                              const std::string& field) {
  const std::string own = Str(At(container, "securityContext." + field));
  return own.empty() ? Str(At(podSpec, "securityContext." + field)) : own;
}

// docs/deployment.md, "Security settings": true of every container in the pod.
TEST_P(Manifests, EveryContainerIsHardened) {
  const YAML::Node pod = PodSpec();
  std::vector<YAML::Node> containers = Items(At(pod, "containers"));
  ASSERT_FALSE(containers.empty()) << "the Deployment has no containers";
  for (const YAML::Node& c : Items(At(pod, "initContainers"))) containers.push_back(c);
  for (const YAML::Node& c : containers) {
    SCOPED_TRACE("container " + Str(At(c, "name")));
    EXPECT_EQ(EffectiveSecurity(pod, c, "runAsNonRoot"), "true");
    EXPECT_EQ(EffectiveSecurity(pod, c, "seccompProfile.type"), "RuntimeDefault");
    EXPECT_EQ(Str(At(c, "securityContext.readOnlyRootFilesystem")), "true");
    EXPECT_EQ(Str(At(c, "securityContext.allowPrivilegeEscalation")), "false");
    EXPECT_TRUE(Contains(Strs(At(c, "securityContext.capabilities.drop")), "ALL"))
        << "capabilities.drop must include ALL";
  }
}

// True when `port` (a name or a number, as in a probe or a Service targetPort) is one of the
// container's ports.
bool ServesPort(const YAML::Node& container, const YAML::Node& port) {
  const std::string ref = Str(port);
  for (const YAML::Node& p : Items(At(container, "ports"))) {
    if (!ref.empty() && (Str(At(p, "name")) == ref || Str(At(p, "containerPort")) == ref)) {
      return true;
    }
  }
  return false;
}

TEST_P(Manifests, ContainerHasHttpsProbesAndResources) {
  const YAML::Node container = GpugateContainer();
  ASSERT_TRUE(container.IsDefined()) << "the Deployment has no container named gpugate";
  const struct {
    const char* probe;
    const char* path;
  } kProbes[] = {{"readinessProbe", "/readyz"}, {"livenessProbe", "/healthz"}};
  for (const auto& [probe, path] : kProbes) {
    SCOPED_TRACE(probe);
    const YAML::Node get = At(container, std::string(probe) + ".httpGet");
    EXPECT_EQ(Str(At(get, "path")), path);
    EXPECT_EQ(Str(At(get, "scheme")), "HTTPS");
    EXPECT_TRUE(ServesPort(container, At(get, "port")))
        << "probe port '" << Str(At(get, "port")) << "' is not a container port";
  }
  for (const char* field :
       {"resources.requests.cpu", "resources.requests.memory", "resources.limits.memory"}) {
    EXPECT_NE(Str(At(container, field)), "") << field << " is not set";
  }
}

// The value after `flag` ("--config PATH" or "--config=PATH"); nullopt when absent.
std::optional<std::string> FlagValue(const std::vector<std::string>& args, std::string_view flag) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
    if (args[i].starts_with(std::string(flag) + "=")) return args[i].substr(flag.size() + 1);
  }
  return std::nullopt;
}

// `gpugate serve --config F` where F is the ConfigMap's file, and the TLS files the config names
// are inside the mounted Secret.
TEST_P(Manifests, ServesTheMountedConfigAndCertificate) {
  const std::vector<std::string> args = Strs(At(GpugateContainer(), "args"));
  ASSERT_FALSE(args.empty()) << "the gpugate container has no args";
  EXPECT_EQ(args[0], "serve");
  const std::optional<std::string> configFile = FlagValue(args, "--config");
  ASSERT_TRUE(configFile) << "args have no --config";

  const YAML::Node configMount = MountOf("configMap.name", kConfigMap);
  ASSERT_TRUE(configMount.IsDefined()) << "ConfigMap gpugate-config is not mounted";
  EXPECT_FALSE(At(configMount, "subPath").IsDefined()) << "a subPath mount is never updated";
  const std::string configDir = Str(At(configMount, "mountPath"));
  EXPECT_EQ(*configFile, configDir + "/config.yaml");

  const YAML::Node tlsMount = MountOf("secret.secretName", kTlsSecret);
  ASSERT_TRUE(tlsMount.IsDefined()) << "Secret " << kTlsSecret << " is not mounted";
  EXPECT_EQ(Str(At(tlsMount, "readOnly")), "true");
  const std::string tlsDir = Str(At(tlsMount, "mountPath")) + "/";
  auto config = ShippedConfig();
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_TRUE(config->tls.certFile.starts_with(tlsDir)) << config->tls.certFile << " vs " << tlsDir;
  EXPECT_TRUE(config->tls.keyFile.starts_with(tlsDir)) << config->tls.keyFile << " vs " << tlsDir;
}

// The shipped config can never stop gpugate at start-up.
TEST_P(Manifests, ShippedConfigPassesGpugatesOwnParser) {
  auto config = ShippedConfig();
  ASSERT_TRUE(config) << config.error().message;
  for (std::string_view ns : {"kube-system", "gpugate-system"}) {
    EXPECT_TRUE(Contains(config->policy.exemptNamespaces, ns)) << ns << " is not exempt";
  }
}

// ---- The webhooks ------------------------------------------------------------------------------

struct WebhookCase {
  const char* kind;
  const char* webhook;
  const char* path;
  const char* failurePolicy;       // docs/deployment.md, "why both webhooks fail closed"
  const char* reinvocationPolicy;  // "" = absent
};
constexpr WebhookCase kWebhooks[] = {
    {"MutatingWebhookConfiguration", "mutate.gpugate.io", "/mutate", "Fail", "IfNeeded"},
    {"ValidatingWebhookConfiguration", "validate.gpugate.io", "/validate", "Fail", ""},
};

// Fields both webhooks share (docs/deployment.md, "Both use ..."); "" = must be absent.
constexpr std::pair<const char*, const char*> kSharedWebhookFields[] = {
    {"sideEffects", "NoneOnDryRun"},
    {"matchPolicy", "Equivalent"},
    {"clientConfig.service.namespace", "gpugate-system"},
    {"clientConfig.service.name", "gpugate"},
    {"clientConfig.url", ""},
    // Set by tools/install-certs.sh or cert-manager; a value here would overwrite theirs on
    // every `kubectl apply`.
    {"clientConfig.caBundle", ""},
};

// The configuration's only webhook; undefined (with a failure) when it has another count or name.
YAML::Node OnlyWebhook(const YAML::Node& configuration, std::string_view name) {
  const std::vector<YAML::Node> webhooks = Items(At(configuration, "webhooks"));
  EXPECT_EQ(webhooks.size(), 1u) << "docs/deployment.md patches /webhooks/0";
  if (webhooks.size() != 1) return Undefined();
  EXPECT_EQ(Str(At(webhooks[0], "name")), name);
  return webhooks[0];
}

// Namespaces a namespaceSelector excludes by `kubernetes.io/metadata.name NotIn [...]`.
std::vector<std::string> ExcludedNamespaces(const YAML::Node& selector) {
  std::vector<std::string> out;
  for (const YAML::Node& e : Items(At(selector, "matchExpressions"))) {
    if (Str(At(e, "key")) == "kubernetes.io/metadata.name" && Str(At(e, "operator")) == "NotIn") {
      for (const std::string& ns : Strs(At(e, "values"))) out.push_back(ns);
    }
  }
  return out;
}

TEST_P(Manifests, WebhooksHaveTheDocumentedSettings) {
  for (const WebhookCase& c : kWebhooks) {
    SCOPED_TRACE(c.kind);
    const YAML::Node webhook = OnlyWebhook(Object(c.kind, "gpugate", ""), c.webhook);
    EXPECT_EQ(Strs(At(webhook, "admissionReviewVersions")),
              (std::vector<std::string>{"v1", "v1beta1"}));
    const std::optional<long long> timeout = Int(At(webhook, "timeoutSeconds"));
    EXPECT_TRUE(timeout && *timeout >= 1 && *timeout <= 10)
        << "timeoutSeconds must be 1 to 10, got '" << Str(At(webhook, "timeoutSeconds")) << "'";
    EXPECT_EQ(Str(At(webhook, "clientConfig.service.path")), c.path);
    EXPECT_EQ(Str(At(webhook, "failurePolicy")), c.failurePolicy);
    EXPECT_EQ(Str(At(webhook, "reinvocationPolicy")), c.reinvocationPolicy);
    for (const auto& [field, value] : kSharedWebhookFields) {
      if (*value == '\0') {
        EXPECT_FALSE(At(webhook, field).IsDefined()) << field << " must not be set";
      } else {
        EXPECT_EQ(Str(At(webhook, field)), value) << field;
      }
    }
    const std::vector<std::string> excluded = ExcludedNamespaces(At(webhook, "namespaceSelector"));
    for (std::string_view ns : {"kube-system", "gpugate-system"}) {
      EXPECT_TRUE(Contains(excluded, ns)) << "namespaceSelector does not exclude " << ns;
    }
  }
}

// docs/deployment.md, "matchConditions": each webhook carries exactly the conditions of
// manifests/base/webhooks.yaml, which match_conditions_test.cc runs through a CEL evaluator (no
// overlay changes them), or, in the overlay for clusters before 1.28, none at all.
TEST_P(Manifests, WebhooksCarryTheTestedMatchConditionsOrNone) {
  const std::vector<YAML::Node> source =
      YAML::LoadAllFromFile(std::string(GPUGATE_SOURCE_DIR) + "/manifests/base/webhooks.yaml");
  for (const WebhookCase& c : kWebhooks) {
    SCOPED_TRACE(c.kind);
    const YAML::Node webhook = OnlyWebhook(Object(c.kind, "gpugate", ""), c.webhook);
    const YAML::Node conditions = At(webhook, "matchConditions");
    if (!GetParam().matchConditions) {
      EXPECT_FALSE(conditions.IsDefined()) << "matchConditions need Kubernetes 1.28";
      continue;
    }
    YAML::Node tested = Undefined();
    for (const YAML::Node& doc : source) {
      if (Str(At(doc, "kind")) == c.kind)
        tested = At(Items(At(doc, "webhooks"))[0], "matchConditions");
    }
    ASSERT_EQ(Items(conditions).size(), Items(tested).size());
    ASSERT_FALSE(Items(conditions).empty());
    for (size_t i = 0; i < Items(conditions).size(); ++i) {
      EXPECT_EQ(Str(At(Items(conditions)[i], "name")), Str(At(Items(tested)[i], "name")));
      EXPECT_EQ(Str(At(Items(conditions)[i], "expression")),
                Str(At(Items(tested)[i], "expression")));
    }
  }
}

// The API server's call reaches gpugate: the Service selects its pods and its port leads to the
// container's HTTPS port.
TEST_P(Manifests, WebhooksReachTheGpugateContainer) {
  const YAML::Node podLabels = At(Object("Deployment", "gpugate"), "spec.template.metadata.labels");
  for (const WebhookCase& c : kWebhooks) {
    SCOPED_TRACE(c.kind);
    const YAML::Node webhook = OnlyWebhook(Object(c.kind, "gpugate", ""), c.webhook);
    const YAML::Node service = Object("Service", Str(At(webhook, "clientConfig.service.name")),
                                      Str(At(webhook, "clientConfig.service.namespace")));
    ASSERT_TRUE(service.IsDefined()) << "the webhook does not call a rendered Service";
    EXPECT_TRUE(Selects(At(service, "spec.selector"), podLabels))
        << "the Service does not select gpugate's pods";
    const YAML::Node portNode = At(webhook, "clientConfig.service.port");
    const std::string port = portNode.IsDefined() ? Str(portNode) : "443";  // the API default
    const YAML::Node servicePort = ItemWith(At(service, "spec.ports"), "port", port);
    ASSERT_TRUE(servicePort.IsDefined()) << "the Service has no port " << port;
    EXPECT_TRUE(ServesPort(GpugateContainer(), At(servicePort, "targetPort")))
        << "Service port " << port << " targets '" << Str(At(servicePort, "targetPort"))
        << "', which is not a port of the gpugate container";
  }
}

// docs/deployment.md, "The webhooks": the mutating webhook sees only pod CREATE.
TEST_P(Manifests, MutatingWebhookSeesPodCreateOnly) {
  const YAML::Node webhook =
      OnlyWebhook(Object("MutatingWebhookConfiguration", "gpugate", ""), "mutate.gpugate.io");
  const ApiResource pods = {"", "v1", "pods"};
  EXPECT_TRUE(Covers(webhook, pods, "CREATE"));
  EXPECT_FALSE(Covers(webhook, pods, "UPDATE"));
  EXPECT_FALSE(Covers(webhook, pods, "DELETE"));
}

// docs/deployment.md, "The webhooks": everything that carries a pod template.
constexpr ApiResource kValidated[] = {
    {"", "v1", "pods"},
    {"", "v1", "podtemplates"},
    {"apps", "v1", "deployments"},
    {"apps", "v1", "replicasets"},
    {"apps", "v1", "statefulsets"},
    {"apps", "v1", "daemonsets"},
    {"batch", "v1", "jobs"},
    {"batch", "v1", "cronjobs"},
    {"batch.volcano.sh", "v1alpha1", "jobs"},
    {"kubeflow.org", "v1", "pytorchjobs"},
    {"kubeflow.org", "v1", "tfjobs"},
    {"kubeflow.org", "v2beta1", "mpijobs"},
    {"serving.kserve.io", "v1beta1", "inferenceservices"},
    {"ray.io", "v1", "rayclusters"},
    {"ray.io", "v1", "rayjobs"},
    {"ray.io", "v1", "rayservices"},
};

TEST_P(Manifests, ValidatingWebhookCoversEveryPodTemplateOwner) {
  const YAML::Node webhook =
      OnlyWebhook(Object("ValidatingWebhookConfiguration", "gpugate", ""), "validate.gpugate.io");
  for (const ApiResource& r : kValidated) {
    for (std::string_view operation : {"CREATE", "UPDATE"}) {
      EXPECT_TRUE(Covers(webhook, r, operation))
          << operation << " " << r.group << "/" << r.version << " " << r.resource << " is not sent";
    }
  }
}

// docs/quota.md, "When a pod is released": the ledger releases a charge when it sees the pod's
// DELETE, or a status UPDATE that reports it Succeeded or Failed.
TEST_P(Manifests, ValidatingWebhookSeesQuotaReleases) {
  const YAML::Node webhook =
      OnlyWebhook(Object("ValidatingWebhookConfiguration", "gpugate", ""), "validate.gpugate.io");
  EXPECT_TRUE(Covers(webhook, {"", "v1", "pods"}, "DELETE")) << "pod DELETE is not sent";
  EXPECT_TRUE(Covers(webhook, {"", "v1", "pods/status"}, "UPDATE"))
      << "pods/status UPDATE is not sent";
}

// ---- Cluster mode (the base and the cert-manager overlay) ---------------------------------------

class ManifestsClusterMode : public RenderedManifests,
                             public ::testing::WithParamInterface<Kustomization> {
 protected:
  void SetUp() override { RenderOrFail(GetParam().subdir); }
};

INSTANTIATE_TEST_SUITE_P(, ManifestsClusterMode,
                         ::testing::ValuesIn(KustomizationsIn(Mode::kCluster)),
                         [](const auto& info) { return info.param.name; });

// The config runs cluster mode through the pod's service account, with no local journal (which
// gpugate refuses beside cluster.enabled).
TEST_P(ManifestsClusterMode, ShippedConfigRunsClusterMode) {
  auto config = ShippedConfig();
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_TRUE(config->cluster.enabled) << "cluster.enabled is not true";
  EXPECT_EQ(config->quota.stateFile, "") << "quota.stateFile is the local ledger's journal";
  EXPECT_EQ(config->cluster.kubeconfig, "") << "in a pod, gpugate uses its service account";
}

// In-cluster configuration reads the token the kubelet mounts; without it gpugate cannot start.
TEST_P(ManifestsClusterMode, PodsMountTheServiceAccountToken) {
  EXPECT_EQ(TokenMounted(), "true") << "cluster mode calls the API with the pod's token";
}

// docs/deployment.md, "Replicas": two replicas share the GPUQuota records; a rollout adds the
// new pod before it removes an old one, and the replicas prefer different nodes.
TEST_P(ManifestsClusterMode, RunsTwoReplicasAndRollsWithoutAGap) {
  const YAML::Node deployment = Object("Deployment", "gpugate");
  EXPECT_EQ(Int(At(deployment, "spec.replicas")), 2)
      << "replicas '" << Str(At(deployment, "spec.replicas")) << "'";
  EXPECT_EQ(Str(At(deployment, "spec.strategy.type")), "RollingUpdate");
  EXPECT_EQ(Int(At(deployment, "spec.strategy.rollingUpdate.maxUnavailable")), 0)
      << "maxUnavailable '" << Str(At(deployment, "spec.strategy.rollingUpdate.maxUnavailable"))
      << "': a rollout would take a replica away before its replacement is ready";
  EXPECT_EQ(Int(At(deployment, "spec.strategy.rollingUpdate.maxSurge")), 1)
      << "maxSurge '" << Str(At(deployment, "spec.strategy.rollingUpdate.maxSurge"))
      << "': with maxUnavailable 0, the rollout needs room for one more pod";

  const YAML::Node antiAffinity = At(PodSpec(), "affinity.podAntiAffinity");
  EXPECT_FALSE(At(antiAffinity, "requiredDuringSchedulingIgnoredDuringExecution").IsDefined())
      << "a required rule leaves the rollout's extra pod Pending on a two-node cluster";
  const YAML::Node podLabels = At(deployment, "spec.template.metadata.labels");
  bool spreadsAcrossNodes = false;
  for (const YAML::Node& term :
       Items(At(antiAffinity, "preferredDuringSchedulingIgnoredDuringExecution"))) {
    spreadsAcrossNodes |=
        Str(At(term, "podAffinityTerm.topologyKey")) == "kubernetes.io/hostname" &&
        Selects(At(term, "podAffinityTerm.labelSelector.matchLabels"), podLabels) &&
        Int(At(term, "weight")) > 0;
  }
  EXPECT_TRUE(spreadsAcrossNodes)
      << "no preferred podAntiAffinity term spreads gpugate's pods across kubernetes.io/hostname";

  for (const YAML::Node& volume : Items(At(PodSpec(), "volumes"))) {
    EXPECT_FALSE(At(volume, "persistentVolumeClaim").IsDefined())
        << "volume " << Str(At(volume, "name")) << ": cluster mode keeps no local state, and a "
        << "ReadWriteOnce claim would hold the second replica and the rollout's extra pod";
  }
}

// A drain may evict a replica only while the other is up; minAvailable must stay below
// replicas, or no drain could evict either.
TEST_P(ManifestsClusterMode, DisruptionBudgetKeepsOneReplicaUp) {
  const YAML::Node deployment = Object("Deployment", "gpugate");
  const YAML::Node pdb = Object("PodDisruptionBudget", "gpugate");
  const std::optional<long long> minAvailable = Int(At(pdb, "spec.minAvailable"));
  EXPECT_EQ(minAvailable, 1) << "minAvailable '" << Str(At(pdb, "spec.minAvailable")) << "'";
  const std::optional<long long> replicas = Int(At(deployment, "spec.replicas"));
  EXPECT_TRUE(minAvailable && replicas && *minAvailable < *replicas)
      << "minAvailable '" << Str(At(pdb, "spec.minAvailable")) << "' with replicas '"
      << Str(At(deployment, "spec.replicas")) << "' blocks every drain";
  EXPECT_FALSE(At(pdb, "spec.maxUnavailable").IsDefined())
      << "a budget sets minAvailable or maxUnavailable, not both";
  EXPECT_TRUE(Selects(At(pdb, "spec.selector.matchLabels"),
                      At(deployment, "spec.template.metadata.labels")))
      << "the PodDisruptionBudget does not select gpugate's pods";
}

// The GPUQuota type gpugate reads and writes at kGpuQuotaCollection (docs/cluster.md).
TEST_P(ManifestsClusterMode, GpuQuotaCustomResourceDefinitionIsWellFormed) {
  const YAML::Node crd = Object("CustomResourceDefinition", kGpuQuotaCrd, "");
  const YAML::Node spec = At(crd, "spec");
  EXPECT_EQ(Str(At(spec, "names.plural")) + "." + Str(At(spec, "group")), kGpuQuotaCrd)
      << "the API server requires metadata.name to be <plural>.<group>";
  EXPECT_EQ(Str(At(spec, "scope")), "Namespaced") << "gpugate keeps one GPUQuota per namespace";
  EXPECT_EQ(Str(At(spec, "names.kind")), cluster::kGpuQuotaKind);
  EXPECT_EQ(Str(At(spec, "names.singular")), "gpuquota");
  EXPECT_EQ(Strs(At(spec, "names.shortNames")), std::vector<std::string>{"gpuq"});

  const std::vector<YAML::Node> versions = Items(At(spec, "versions"));
  ASSERT_EQ(versions.size(), 1u) << "want one version, v1alpha1";
  const YAML::Node version = versions[0];
  EXPECT_EQ(Str(At(version, "served")), "true");
  EXPECT_EQ(Str(At(version, "storage")), "true");
  EXPECT_EQ("/apis/" + Str(At(spec, "group")) + "/" + Str(At(version, "name")) + "/" +
                Str(At(spec, "names.plural")),
            cluster::kGpuQuotaCollection)
      << "the CRD does not serve the path gpugate uses";
  // gpugate writes status with plain updates: a status subresource would make the API server
  // drop status from them.
  EXPECT_FALSE(At(version, "subresources.status").IsDefined()) << "no status subresource";

  const YAML::Node schema = At(version, "schema.openAPIV3Schema");
  EXPECT_EQ(Str(At(schema, "type")), "object");
  EXPECT_EQ(Str(At(schema, "properties.spec.type")), "object");
  EXPECT_EQ(Str(At(schema, "properties.status.type")), "object");
  EXPECT_EQ(Str(At(schema, "properties.status.x-kubernetes-preserve-unknown-fields")), "true")
      << "without it the API server prunes the charges gpugate writes";

  std::vector<std::string> columns;
  for (const YAML::Node& c : Items(At(version, "additionalPrinterColumns"))) {
    columns.push_back(Str(At(c, "name")) + " " + Str(At(c, "type")) + " " + Str(At(c, "jsonPath")));
  }
  EXPECT_EQ(columns, (std::vector<std::string>{"USED string .status.usedSummary",
                                               "HARD string .status.hardSummary",
                                               "AGE date .metadata.creationTimestamp"}));
}

// Every (API group, resource, verb) a role's rules grant, as "group resource verb" with "core"
// for the "" group; rules that a triple cannot describe (resourceNames, nonResourceURLs) go to
// `unsupported`.
std::set<std::string> Grants(const YAML::Node& role, std::vector<std::string>& unsupported) {
  std::set<std::string> grants;
  for (const YAML::Node& rule : Items(At(role, "rules"))) {
    for (const char* field : {"resourceNames", "nonResourceURLs"}) {
      if (At(rule, field).IsDefined()) unsupported.push_back(field);
    }
    for (const std::string& group : Strs(At(rule, "apiGroups"))) {
      for (const std::string& resource : Strs(At(rule, "resources"))) {
        for (const std::string& verb : Strs(At(rule, "verbs"))) {
          grants.insert((group.empty() ? "core" : group) + " " + resource + " " + verb);
        }
      }
    }
  }
  return grants;
}

// The grants docs/cluster.md's "RBAC" table documents, one "group resource verb" per verb of
// each row `| \`resource\` | verbs | why |`; `gpuquotas.gpugate.io` is resource.group.
std::set<std::string> DocumentedGrants() {
  auto trim = [](std::string text) {
    text.erase(0, text.find_first_not_of(" `"));
    text.erase(text.find_last_not_of(" `") + 1);
    return text;
  };
  std::ifstream in(std::string(GPUGATE_SOURCE_DIR) + "/docs/cluster.md");
  std::set<std::string> grants;
  bool inSection = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) inSection = line == "## RBAC";
    if (!inSection || !line.starts_with("| `")) continue;
    std::vector<std::string> cells;  // "", resource, verbs, why, ""
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(trim(cell));
    if (cells.size() < 3) continue;
    const size_t dot = cells[1].find('.');
    const std::string resource = cells[1].substr(0, dot);
    const std::string group = dot == std::string::npos ? "core" : cells[1].substr(dot + 1);
    std::istringstream verbs(cells[2]);
    for (std::string verb; std::getline(verbs, verb, ',');) {
      grants.insert(group + " " + resource + " " + trim(verb));
    }
  }
  return grants;
}

// docs/cluster.md, "RBAC": exactly what cluster mode uses, so a wildcard or an extra verb fails.
TEST_P(ManifestsClusterMode, ClusterRoleGrantsExactlyWhatClusterModeUses) {
  const YAML::Node role = Object("ClusterRole", "gpugate", "");
  EXPECT_FALSE(At(role, "aggregationRule").IsDefined()) << "an aggregated role has other rules";
  std::vector<std::string> unsupported;
  const std::set<std::string> got = Grants(role, unsupported);
  EXPECT_TRUE(unsupported.empty()) << "rules with " << ::testing::PrintToString(unsupported);
  const std::set<std::string> want = {
      "core pods get",
      "core pods list",
      "core pods watch",
      "core resourcequotas get",
      "core resourcequotas list",
      "core resourcequotas watch",
      "core namespaces get",
      "core namespaces list",
      "core namespaces watch",
      "gpugate.io gpuquotas get",
      "gpugate.io gpuquotas list",
      "gpugate.io gpuquotas watch",
      "gpugate.io gpuquotas create",
      "gpugate.io gpuquotas update",
      "gpugate.io gpubudgets get",
      "gpugate.io gpubudgets list",
      "gpugate.io gpubudgets watch",
  };
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << "not granted: " << ::testing::PrintToString(missing);
  EXPECT_TRUE(extra.empty()) << "granted beyond docs/cluster.md: "
                             << ::testing::PrintToString(extra);
  EXPECT_EQ(DocumentedGrants(), want) << "docs/cluster.md's RBAC table";
}

// The grant reaches gpugate's pods: the binding names the ServiceAccount the Deployment runs as.
TEST_P(ManifestsClusterMode, ClusterRoleIsBoundToGpugatesServiceAccount) {
  const YAML::Node binding = Object("ClusterRoleBinding", "gpugate", "");
  EXPECT_EQ(Str(At(binding, "roleRef.apiGroup")), "rbac.authorization.k8s.io");
  EXPECT_EQ(Str(At(binding, "roleRef.kind")), "ClusterRole");
  EXPECT_EQ(Str(At(binding, "roleRef.name")), "gpugate");
  std::vector<std::string> subjects;
  for (const YAML::Node& s : Items(At(binding, "subjects"))) {
    subjects.push_back(Str(At(s, "kind")) + " " + Str(At(s, "namespace")) + "/" +
                       Str(At(s, "name")));
  }
  EXPECT_EQ(subjects, std::vector<std::string>{"ServiceAccount gpugate-system/gpugate"});
  EXPECT_EQ(Str(At(PodSpec(), "serviceAccountName")), kServiceAccount);
  EXPECT_EQ(Str(At(Object("ServiceAccount", kServiceAccount), "metadata.namespace")), kNamespace);
}

// Every authenticated user may read GPUBudget objects, and nothing more: the role is not
// aggregated (into admin or edit, whose holders could then write budgets) and only reads.
TEST_P(Manifests, EveryUserMayReadBudgetsAndOnlyRead) {
  const YAML::Node role = Object("ClusterRole", "gpugate-budget-reader", "");
  EXPECT_FALSE(At(role, "aggregationRule").IsDefined());
  EXPECT_FALSE(At(role, "metadata.labels").IsDefined() &&
               At(role, "metadata.labels")["rbac.authorization.k8s.io/aggregate-to-admin"])
      << "aggregated to admin";
  std::vector<std::string> unsupported;
  EXPECT_EQ(Grants(role, unsupported),
            (std::set<std::string>{"gpugate.io gpubudgets get", "gpugate.io gpubudgets list",
                                   "gpugate.io gpubudgets watch"}));
  const YAML::Node binding = Object("ClusterRoleBinding", "gpugate-budget-reader", "");
  EXPECT_EQ(Str(At(binding, "roleRef.name")), "gpugate-budget-reader");
  std::vector<std::string> subjects;
  for (const YAML::Node& s : Items(At(binding, "subjects"))) {
    subjects.push_back(Str(At(s, "kind")) + " " + Str(At(s, "name")));
  }
  EXPECT_EQ(subjects, std::vector<std::string>{"Group system:authenticated"});
}

// ---- The local-ledger overlay ------------------------------------------------------------------

class ManifestsLocalLedger : public RenderedManifests {
 protected:
  void SetUp() override { RenderOrFail("/overlays/local-ledger"); }
};

// The local ledger calls no API: cluster mode off, and no token in the pods.
TEST_F(ManifestsLocalLedger, CallsNoKubernetesApi) {
  auto config = ShippedConfig();
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_FALSE(config->cluster.enabled) << "the overlay runs the local ledger";
  EXPECT_FALSE(FlagValue(Strs(At(GpugateContainer(), "args")), "--kubeconfig"))
      << "--kubeconfig turns cluster mode on";
  EXPECT_EQ(TokenMounted(), "false") << "the local ledger calls no API, so its pod holds no token";
}

// docs/deployment.md, "The local-ledger overlay": the quota ledger is local to one process, so
// one replica, and Recreate so the old and new pods never write the journal at once.
TEST_F(ManifestsLocalLedger, RunsOneReplicaAndRecreatesIt) {
  const YAML::Node deployment = Object("Deployment", "gpugate");
  EXPECT_EQ(Int(At(deployment, "spec.replicas")), 1)
      << "replicas '" << Str(At(deployment, "spec.replicas"))
      << "': each replica keeps its own ledger and would admit up to the limit";
  EXPECT_EQ(Str(At(deployment, "spec.strategy.type")), "Recreate")
      << "a rolling update runs two pods on one journal";
  EXPECT_FALSE(At(deployment, "spec.strategy.rollingUpdate").IsDefined())
      << "the API server refuses rollingUpdate with the Recreate strategy";
}

// With one replica, minAvailable 1 would block every drain of its node; maxUnavailable 1 lets the
// drain evict it.
TEST_F(ManifestsLocalLedger, DisruptionBudgetLetsADrainEvictTheReplica) {
  const YAML::Node deployment = Object("Deployment", "gpugate");
  const YAML::Node pdb = Object("PodDisruptionBudget", "gpugate");
  EXPECT_FALSE(At(pdb, "spec.minAvailable").IsDefined())
      << "minAvailable '" << Str(At(pdb, "spec.minAvailable"))
      << "' with one replica blocks drains";
  EXPECT_EQ(Int(At(pdb, "spec.maxUnavailable")), 1)
      << "maxUnavailable '" << Str(At(pdb, "spec.maxUnavailable")) << "'";
  EXPECT_TRUE(Selects(At(pdb, "spec.selector.matchLabels"),
                      At(deployment, "spec.template.metadata.labels")))
      << "the PodDisruptionBudget does not select gpugate's pods";
}

// The journal named by the shipped config lives on the PersistentVolumeClaim, mounted writable
// at the journal's directory (compaction renames a file over it there), so it outlives the pod.
TEST_F(ManifestsLocalLedger, QuotaJournalIsOnThePersistentVolume) {
  auto config = ShippedConfig();
  ASSERT_TRUE(config) << config.error().message;
  const std::filesystem::path stateFile = config->quota.stateFile;
  ASSERT_TRUE(stateFile.is_absolute()) << "quota.stateFile '" << stateFile.string()
                                       << "' must be an absolute path; empty keeps no journal";

  const YAML::Node claim = Object("PersistentVolumeClaim", kStateClaim);
  EXPECT_EQ(Strs(At(claim, "spec.accessModes")), std::vector<std::string>{"ReadWriteOnce"});
  EXPECT_EQ(Str(At(claim, "spec.resources.requests.storage")), "1Gi");
  EXPECT_FALSE(At(claim, "spec.storageClassName").IsDefined())
      << "docs/deployment.md promises the cluster's default StorageClass";

  const YAML::Node mount = MountOf("persistentVolumeClaim.claimName", kStateClaim);
  ASSERT_TRUE(mount.IsDefined()) << "PersistentVolumeClaim " << kStateClaim << " is not mounted";
  EXPECT_EQ(Str(At(mount, "mountPath")), stateFile.parent_path().string());
  EXPECT_FALSE(At(mount, "subPath").IsDefined());
  EXPECT_NE(Str(At(mount, "readOnly")), "true") << "gpugate appends to the journal";
  EXPECT_NE(Str(At(PodSpec(), "securityContext.fsGroup")), "")
      << "without fsGroup, uid " << Str(At(PodSpec(), "securityContext.runAsUser"))
      << " may not be able to write the volume";
}

// ---- The cert-manager overlay ------------------------------------------------------------------

class ManifestsCertManager : public RenderedManifests {
 protected:
  void SetUp() override { RenderOrFail("/overlays/cert-manager"); }
};

// The Certificate whose CA the injector puts in both webhooks is the one the pods serve.
TEST_F(ManifestsCertManager, WebhooksTrustTheMountedCertificate) {
  std::vector<std::string> mountedSecrets;
  for (const YAML::Node& v : Items(At(PodSpec(), "volumes"))) {
    if (At(v, "secret").IsDefined()) mountedSecrets.push_back(Str(At(v, "secret.secretName")));
  }
  ASSERT_EQ(mountedSecrets.size(), 1u) << "the Deployment should mount exactly its TLS Secret";

  std::vector<YAML::Node> serving;
  for (const YAML::Node& cert : rendering_->OfKind("Certificate")) {
    if (Str(At(cert, "spec.secretName")) == mountedSecrets[0]) serving.push_back(cert);
  }
  ASSERT_EQ(serving.size(), 1u) << "want one Certificate issuing the mounted Secret "
                                << mountedSecrets[0];
  EXPECT_TRUE(Contains(Strs(At(serving[0], "spec.dnsNames")), kServiceHost))
      << Identity(serving[0]) << " does not name " << kServiceHost;

  const std::string certificate =
      Str(At(serving[0], "metadata.namespace")) + "/" + Str(At(serving[0], "metadata.name"));
  for (const WebhookCase& c : kWebhooks) {
    const YAML::Node annotations = At(Object(c.kind, "gpugate", ""), "metadata.annotations");
    EXPECT_EQ(Str(Child(annotations, kInjectCaFrom)), certificate) << c.kind;
  }
}

// The overlay is self-contained: every Certificate's Issuer is rendered, and the CA Issuer signs
// with a CA Certificate's Secret.
TEST_F(ManifestsCertManager, CertificatesChainToRenderedIssuers) {
  for (const YAML::Node& cert : rendering_->OfKind("Certificate")) {
    SCOPED_TRACE(Identity(cert));
    EXPECT_EQ(Str(At(cert, "spec.issuerRef.kind")), "Issuer");
    const std::string issuer = Str(At(cert, "spec.issuerRef.name"));
    EXPECT_TRUE(rendering_->Find("Issuer", Str(At(cert, "metadata.namespace")), issuer).IsDefined())
        << "Issuer " << issuer << " is not rendered";
  }
  for (const YAML::Node& issuer : rendering_->OfKind("Issuer")) {
    const std::string caSecret = Str(At(issuer, "spec.ca.secretName"));
    if (caSecret.empty()) continue;
    bool signedByCa = false;
    for (const YAML::Node& cert : rendering_->OfKind("Certificate")) {
      signedByCa |=
          Str(At(cert, "spec.secretName")) == caSecret && Str(At(cert, "spec.isCA")) == "true";
    }
    EXPECT_TRUE(signedByCa) << Identity(issuer) << " signs with Secret " << caSecret
                            << ", which no CA Certificate issues";
  }
}

}  // namespace
}  // namespace gpugate::testing
