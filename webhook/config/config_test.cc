#include "config/config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quota/amounts.h"
#include "test_paths.h"

namespace gpugate::config {
namespace {

using policy::CoreLimitMode;

// Short renderings of a Config, so a test compares one string and a failure shows the difference.

std::string RenderResources(const Config& c) {
  std::string out;
  for (const auto& r : c.policy.resources) {
    if (!out.empty()) out += "; ";
    out += r.name;
    if (r.isPattern) out += " pattern";
    if (r.maxPerContainer) out += " max=" + std::to_string(*r.maxPerContainer);
    if (!r.schedulerName.empty()) out += " scheduler=" + r.schedulerName;
    if (!r.toleration) out += " no-toleration";
  }
  return out;
}

std::string RenderTolerations(const Config& c) {
  std::string out;
  for (const auto& t : c.policy.tolerations) {
    if (!out.empty()) out += "; ";
    out += "key=" + t.key + " op=" + t.op + " value=" + t.value + " effect=" + t.effect;
  }
  return out;
}

std::string RenderCoreLimit(const Config& c) {
  switch (c.policy.coreLimit.mode) {
    case CoreLimitMode::kRequest:
      return "request";
    case CoreLimitMode::kOff:
      return "off";
    case CoreLimitMode::kFixed:
      return "fixed " + std::to_string(c.policy.coreLimit.value);
  }
  return "?";
}

std::string RenderListen(const Config& c) { return c.listen; }
std::string RenderShutdownDelay(const Config& c) {
  return std::to_string(c.shutdownDelay.count()) + "ms";
}

std::string RenderTls(const Config& c) { return c.tls.certFile + " " + c.tls.keyFile; }

std::string RenderClientAuth(const Config& c) {
  std::string out = "clientCAFile=" + c.tls.clientCAFile + " openPaths=";
  for (const auto& p : c.tls.openPaths) out += (out.back() == '=' ? "" : ",") + p;
  return out + " reload=" + std::to_string(c.tls.reloadInterval.count()) + "ms";
}

std::string RenderExempt(const Config& c) {
  std::string out;
  for (const auto& ns : c.policy.exemptNamespaces) out += (out.empty() ? "" : ",") + ns;
  return out;
}

std::string RenderScheduler(const Config& c) { return c.policy.schedulerName; }

std::string RenderSecurity(const Config& c) {
  return std::string("denyVisibleDevicesEnv=") +
         (c.policy.denyVisibleDevicesEnv ? "true" : "false") +
         " denyPrivilegedGPU=" + (c.policy.denyPrivilegedGPU ? "true" : "false");
}

// "name{resource=amount,...}" with amounts as decimals; zero limits are shown, unlike
// quota::FormatAmounts, since a limit of 0 means something.
std::string RenderAmounts(const std::string& name, const quota::Amounts& amounts) {
  std::string out = name + "{";
  for (const auto& [resource, milli] : amounts) {
    if (out.back() != '{') out += ",";
    out += resource + "=" + quota::FormatMilli(milli);
  }
  return out + "}";
}

std::string RenderQuota(const Config& c) {
  std::string out = "stateFile=" + c.quota.stateFile;
  for (const auto& [ns, limits] : c.quota.limits) out += "; " + RenderAmounts(ns, limits);
  for (const policy::Flavor& f : c.quota.flavors) {
    out += "; flavor " + f.name + "{";
    for (const auto& [key, value] : f.nodeLabels) out += key + "=" + value + ",";
    for (const std::string& type : f.gpuTypes) out += "type:" + type + ",";
    out += "}";
  }
  for (const auto& [ns, flavor] : c.quota.defaultFlavors) out += "; default " + ns + "=" + flavor;
  for (const auto& [figure, weights] : c.quota.weights) {
    out += "; weights " + RenderAmounts(figure, weights);
  }
  return out;
}

// "default=deny; quota=warn; prod-*{mode=deny,mutate=false}".
std::string RenderModes(const Config& c) {
  const policy::ModeSettings& m = c.policy.modes;
  std::string out = "default=" + std::string(policy::ModeName(m.defaultMode));
  for (const auto& [rule, mode] : m.rules) out += "; " + rule + "=" + std::string(ModeName(mode));
  for (const policy::NamespaceModes& e : m.namespaces) {
    std::string fields;
    auto add = [&fields](const std::string& f) { fields += (fields.empty() ? "" : ",") + f; };
    if (e.mode) add("mode=" + std::string(ModeName(*e.mode)));
    for (const auto& [rule, mode] : e.rules) add(rule + "=" + std::string(ModeName(mode)));
    if (e.mutate) add(std::string("mutate=") + (*e.mutate ? "true" : "false"));
    out += "; " + e.pattern + "{" + fields + "}";
  }
  return out;
}

// "batch.volcano.sh/v1alpha1/jobs kubeflow.org/v1/tfjobs".
std::string RenderAudit(const Config& c) {
  std::string out;
  for (const CustomResource& r : c.audit.customResources) {
    out += (out.empty() ? "" : " ") + r.group + "/" + r.version + "/" + r.resource;
  }
  return out;
}

std::string Render(const Config& c) {
  return "listen: " + RenderListen(c) + "\ntls: " + RenderTls(c) + "\nexempt: " + RenderExempt(c) +
         "\nresources: " + RenderResources(c) + "\nscheduler: " + RenderScheduler(c) +
         "\ntolerations: " + RenderTolerations(c) + "\ncoreLimit: " + RenderCoreLimit(c) + "\n" +
         RenderSecurity(c) + "\nmodes: " + RenderModes(c) + "\nquota: " + RenderQuota(c) +
         "\naudit: " + RenderAudit(c) + "\n";
}

constexpr char kDefaultRendering[] =
    "listen: 0.0.0.0:8443\n"
    "tls: /etc/gpugate/tls/tls.crt /etc/gpugate/tls/tls.key\n"
    "exempt: kube-system\n"
    "resources: nvidia.com/gpu; amd.com/gpu; nvidia.com/mig-* pattern; tencent.com/vcuda-core; "
    "tencent.com/vcuda-memory; aliyun.com/gpu-mem; volcano.sh/gpu-memory scheduler=volcano; "
    "volcano.sh/gpu-number scheduler=volcano; volcano.sh/vgpu-* pattern scheduler=volcano; "
    "nvidia.com/gpumem; nvidia.com/gpucores; nvidia.com/gpumem-percentage\n"
    "scheduler: \n"
    "tolerations: \n"
    "coreLimit: request\n"
    "denyVisibleDevicesEnv=true denyPrivilegedGPU=true\n"
    "modes: default=deny\n"
    "quota: stateFile=\n"
    "audit: \n";

TEST(ParseConfig, EmptyDocumentsGiveDefaults) {
  const char* inputs[] = {"", "\n", "# only a comment\n", "---\n", "~\n", "---\n---\n"};
  for (const char* yaml : inputs) {
    auto got = ParseConfig(yaml, "gpugate.yaml");
    ASSERT_TRUE(got.has_value()) << yaml << ": " << got.error().message;
    EXPECT_EQ(Render(*got), kDefaultRendering) << yaml;
  }
}

struct ValueCase {
  const char* yaml;
  std::string (*render)(const Config&);
  const char* want;
};

TEST(ParseConfig, Values) {
  const ValueCase cases[] = {
      {"listen: \"127.0.0.1:9443\"", RenderListen, "127.0.0.1:9443"},
      {"shutdownDelaySeconds: 5", RenderShutdownDelay, "5000ms"},
      {"shutdownDelaySeconds: 0", RenderShutdownDelay, "0ms"},
      {"listen: \"127.0.0.1:9443\"", RenderShutdownDelay, "0ms"},
      {"listen: \"[::]:8443\"", RenderListen, "[::]:8443"},
      {"listen: \"[::1]:0\"", RenderListen, "[::1]:0"},
      {"listen: localhost:65535", RenderListen, "localhost:65535"},
      {"listen: webhook.gpugate.svc:8443", RenderListen, "webhook.gpugate.svc:8443"},
      {"tls: {certFile: /a.crt}", RenderTls, "/a.crt /etc/gpugate/tls/tls.key"},
      {"tls:\n  keyFile: /b.key\n  certFile: /a.crt", RenderTls, "/a.crt /b.key"},
      {"tls: {certFile: /a.crt}", RenderClientAuth, "clientCAFile= openPaths= reload=10000ms"},
      {"tls:\n  clientCAFile: /etc/gpugate/client-ca/ca.crt\n  openPaths: [/metrics, /quota, "
       "/usage]\n"
       "  reloadIntervalSeconds: 1\n",
       RenderClientAuth,
       "clientCAFile=/etc/gpugate/client-ca/ca.crt openPaths=/metrics,/quota,/usage reload=1000ms"},
      {"tls: {clientCAFile: \"\", openPaths: [], reloadIntervalSeconds: 3600}", RenderClientAuth,
       "clientCAFile= openPaths= reload=3600000ms"},
      {"exemptNamespaces: [kube-system, gpu-operator]", RenderExempt, "kube-system,gpu-operator"},
      {"exemptNamespaces: []", RenderExempt, ""},
      {"resources: [{name: nvidia.com/gpu}]", RenderResources, "nvidia.com/gpu"},
      {"resources:\n"
       "  - name: nvidia.com/gpu\n"
       "    maxPerContainer: 1\n"
       "  - pattern: \"nvidia.com/mig-*\"\n"
       "  - name: volcano.sh/gpu-memory\n"
       "    schedulerName: volcano\n"
       "    toleration: false\n",
       RenderResources,
       "nvidia.com/gpu max=1; nvidia.com/mig-* pattern; volcano.sh/gpu-memory scheduler=volcano "
       "no-toleration"},
      {"resources: [{pattern: \"*/gpu\"}, {name: example.com/Big_Card.v2}]", RenderResources,
       "*/gpu pattern; example.com/Big_Card.v2"},
      {"resources: [{name: x.io/a, maxPerContainer: 9223372036854775807, toleration: true}]",
       RenderResources, "x.io/a max=9223372036854775807"},
      {"mutation: {schedulerName: hami-scheduler}", RenderScheduler, "hami-scheduler"},
      {"mutation: {schedulerName: \"\"}", RenderScheduler, ""},
      {"mutation:\n  tolerations:\n    - {key: gpu, operator: Exists, effect: NoSchedule}\n",
       RenderTolerations, "key=gpu op=Exists value= effect=NoSchedule"},
      {"mutation:\n  tolerations:\n    - {key: nvidia.com/gpu, value: present}\n    - operator: "
       "Exists\n",
       RenderTolerations,
       "key=nvidia.com/gpu op=Equal value=present effect=; key= op=Exists value= effect="},
      {"mutation: {tolerations: []}", RenderTolerations, ""},
      {"mutation: {coreLimit: request}", RenderCoreLimit, "request"},
      {"mutation: {coreLimit: \"request\"}", RenderCoreLimit, "request"},
      {"mutation: {coreLimit: off}", RenderCoreLimit, "off"},
      {"mutation: {coreLimit: 1}", RenderCoreLimit, "fixed 1"},
      {"mutation: {coreLimit: 100}", RenderCoreLimit, "fixed 100"},
      {"security: {denyVisibleDevicesEnv: false}", RenderSecurity,
       "denyVisibleDevicesEnv=false denyPrivilegedGPU=true"},
      {"security: {denyPrivilegedGPU: false}", RenderSecurity,
       "denyVisibleDevicesEnv=true denyPrivilegedGPU=false"},
      // Anchors and aliases are plain YAML and work anywhere.
      {"resources: [{name: v.sh/a, schedulerName: &s volcano}]\nmutation: {schedulerName: *s}",
       RenderScheduler, "volcano"},
      // A stray trailing document marker is not a second document.
      {"listen: \"0.0.0.0:1\"\n---\n", RenderListen, "0.0.0.0:1"},
  };
  for (const auto& c : cases) {
    auto got = ParseConfig(c.yaml, "gpugate.yaml");
    ASSERT_TRUE(got.has_value()) << c.yaml << "\n" << got.error().message;
    EXPECT_EQ(c.render(*got), c.want) << c.yaml;
  }
}

TEST(ParseConfig, QuotaValues) {
  const ValueCase cases[] = {
      {"quota: {stateFile: /var/lib/gpugate/ledger}", RenderQuota,
       "stateFile=/var/lib/gpugate/ledger"},
      {"quota: {stateFile: \"\"}", RenderQuota, "stateFile="},
      {"quota: {}", RenderQuota, "stateFile="},
      {"quota: {namespaces: {}, weights: {}}", RenderQuota, "stateFile="},
      {"quota:\n"
       "  namespaces:\n"
       "    team-b: {nvidia.com/gpu: 0}\n"
       "    team-a:\n"
       "      nvidia.com/gpu: 4\n"
       "      tencent.com/vcuda-core: 250.5\n"
       "      nvidia.com/mig-1g.5gb: 0.001\n",
       RenderQuota,
       "stateFile=; team-a{nvidia.com/gpu=4,nvidia.com/mig-1g.5gb=0.001,"
       "tencent.com/vcuda-core=250.5}; team-b{nvidia.com/gpu=0}"},
      // A namespace with an empty map has no limits, as if it were not listed.
      {"quota: {namespaces: {team-a: {}}}", RenderQuota, "stateFile=; team-a{}"},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: 9223372036854775.807}}}", RenderQuota,
       "stateFile=; team-a{nvidia.com/gpu=9223372036854775.807}"},
      {"quota:\n"
       "  weights:\n"
       "    gpu-equivalents: {nvidia.com/gpu: 1, amd.com/gpu: 1, tencent.com/vcuda-core: 0.01}\n"
       "    example.com/cost: {nvidia.com/mig-1g.5gb: 0.25}\n",
       RenderQuota,
       "stateFile=; weights example.com/cost{nvidia.com/mig-1g.5gb=0.25}; weights "
       "gpu-equivalents{amd.com/gpu=1,nvidia.com/gpu=1,tencent.com/vcuda-core=0.01}"},
      // Limits may name a figure defined later in the section.
      {"quota:\n"
       "  namespaces: {team-a: {gpu-equivalents: 6, nvidia.com/gpu: 4}}\n"
       "  weights: {gpu-equivalents: {nvidia.com/gpu: 1}}\n",
       RenderQuota,
       "stateFile=; team-a{gpu-equivalents=6,nvidia.com/gpu=4}; weights "
       "gpu-equivalents{nvidia.com/gpu=1}"},
      // quota is checked against `resources` wherever the two appear in the file.
      {"quota: {namespaces: {team-a: {example.com/fpga: 2}}}\n"
       "resources: [{name: example.com/fpga}]\n",
       RenderQuota, "stateFile=; team-a{example.com/fpga=2}"},
  };
  for (const auto& c : cases) {
    auto got = ParseConfig(c.yaml, "gpugate.yaml");
    ASSERT_TRUE(got.has_value()) << c.yaml << "\n" << got.error().message;
    EXPECT_EQ(c.render(*got), c.want) << c.yaml;
  }
}

// Every key of the file format, each set away from its default.
constexpr char kFullExample[] = R"(listen: "[::]:9443"
tls:
  certFile: /var/run/gpugate/tls.crt
  keyFile: /var/run/gpugate/tls.key
exemptNamespaces: [kube-system, gpu-operator]
resources:
  - name: nvidia.com/gpu
    maxPerContainer: 1
  - pattern: "nvidia.com/mig-*"
  - name: volcano.sh/gpu-memory
    schedulerName: volcano
    toleration: false
mutation:
  schedulerName: hami-scheduler
  tolerations:
    - {key: gpu, operator: Exists, effect: NoSchedule}
    - {key: dedicated, value: ml, effect: NoExecute}
  coreLimit: 50
security:
  denyVisibleDevicesEnv: false
  denyPrivilegedGPU: false
modes:
  default: warn
  rules: {quota: audit}
  namespaces:
    - {pattern: "prod-*", mode: deny, mutate: false}
quota:
  stateFile: /var/lib/gpugate/ledger
  namespaces:
    team-a: {nvidia.com/gpu: 4, gpu-equivalents: 6, nvidia.com/gpu@a100: 2}
    team-b: {nvidia.com/mig-1g.5gb: 2}
  weights:
    gpu-equivalents: {nvidia.com/gpu: 1, nvidia.com/mig-1g.5gb: 0.5}
  flavors:
    a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
    t4: {nodeLabels: {nvidia.com/gpu.product: Tesla-T4}, gpuTypes: ["NVIDIA-Tesla T4"]}
  defaultFlavors:
    team-b: t4
audit:
  customResources:
    - {group: batch.volcano.sh, version: v1alpha1, resource: jobs}
)";

TEST(ParseConfig, FullExampleSetsEveryKey) {
  auto got = ParseConfig(kFullExample, "gpugate.yaml");
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(Render(*got),
            "listen: [::]:9443\n"
            "tls: /var/run/gpugate/tls.crt /var/run/gpugate/tls.key\n"
            "exempt: kube-system,gpu-operator\n"
            "resources: nvidia.com/gpu max=1; nvidia.com/mig-* pattern; volcano.sh/gpu-memory "
            "scheduler=volcano no-toleration\n"
            "scheduler: hami-scheduler\n"
            "tolerations: key=gpu op=Exists value= effect=NoSchedule; key=dedicated op=Equal "
            "value=ml effect=NoExecute\n"
            "coreLimit: fixed 50\n"
            "denyVisibleDevicesEnv=false denyPrivilegedGPU=false\n"
            "modes: default=warn; quota=audit; prod-*{mode=deny,mutate=false}\n"
            "quota: stateFile=/var/lib/gpugate/ledger; "
            "team-a{gpu-equivalents=6,nvidia.com/gpu=4,nvidia.com/gpu@a100=2}; "
            "team-b{nvidia.com/mig-1g.5gb=2}; "
            "flavor a100{nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB,}; "
            "flavor t4{nvidia.com/gpu.product=Tesla-T4,type:NVIDIA-Tesla T4,}; default team-b=t4; "
            "weights gpu-equivalents{nvidia.com/gpu=1,nvidia.com/mig-1g.5gb=0.5}\n"
            "audit: batch.volcano.sh/v1alpha1/jobs\n");
  // Settings::Find sees the replaced list: exact names, then patterns.
  ASSERT_NE(got->policy.Find("nvidia.com/mig-1g.5gb"), nullptr);
  EXPECT_TRUE(got->policy.Find("nvidia.com/mig-1g.5gb")->isPattern);
  EXPECT_EQ(got->policy.Find("amd.com/gpu"), nullptr);
  EXPECT_TRUE(got->policy.IsExempt("gpu-operator"));
}

std::filesystem::path DocsFile() {
  return std::filesystem::path(GPUGATE_SOURCE_DIR) / "docs/configuration.md";
}

// The ```yaml blocks of the documentation, in order.
std::vector<std::string> YamlBlocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  std::istringstream in(markdown);
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

TEST(ConfigurationDoc, ExamplesParseAndShowTheFullExample) {
  std::ifstream in(DocsFile());
  ASSERT_TRUE(in) << "cannot open " << DocsFile();
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> blocks = YamlBlocks(doc);
  EXPECT_GE(blocks.size(), 10u);
  for (const auto& block : blocks) {
    auto got = ParseConfig(block, "configuration.md");
    EXPECT_TRUE(got.has_value()) << block << "\n" << got.error().message;
  }
  EXPECT_NE(doc.find(std::string("```yaml\n") + kFullExample + "```\n"), std::string::npos)
      << "docs/configuration.md must show kFullExample verbatim";
  // The block that writes out the built-in resource list must match the built-in list.
  auto builtIn = std::find_if(blocks.begin(), blocks.end(), [](const std::string& b) {
    return b.find("amd.com/gpu") != std::string::npos;
  });
  ASSERT_NE(builtIn, blocks.end()) << "docs/configuration.md must write out the built-in list";
  auto parsed = ParseConfig(*builtIn, "configuration.md");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(RenderResources(*parsed), RenderResources(Config{}));
}

TEST(LoadConfigFile, ReadsAFileAndNamesItInErrors) {
  std::string dir = testing::TempDir();
  std::string good = dir + "/gpugate_config_test_good.yaml";
  std::string bad = dir + "/gpugate_config_test_bad.yaml";
  std::ofstream(good) << kFullExample;
  std::ofstream(bad) << "listen: \"0.0.0.0:1\"\nlisten2: x\n";

  auto loaded = LoadConfigFile(good);
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->listen, "[::]:9443");

  auto failed = LoadConfigFile(bad);
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().message,
            bad +
                ":2: listen2: unknown key (known: listen, shutdownDelay, shutdownDelaySeconds, "
                "server, tls, exemptNamespaces, resources, mutation, security, modes, cluster, "
                "audit, quota, usage)");
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

TEST(LoadConfigFile, UnreadablePaths) {
  struct Case {
    std::string path, want;
  } cases[] = {
      {"/nonexistent/gpugate.yaml",
       "/nonexistent/gpugate.yaml: cannot read: No such file or directory"},
      {testing::TempDir(), testing::TempDir() + ": cannot read: Is a directory"},
  };
  for (const auto& c : cases) {
    auto got = LoadConfigFile(c.path);
    ASSERT_FALSE(got.has_value()) << c.path;
    EXPECT_EQ(got.error().message, c.want);
  }
}

}  // namespace
}  // namespace gpugate::config
