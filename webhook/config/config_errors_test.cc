// The messages a user sees for a wrong config file, asserted in full: file, line, key path and
// reason. One table per part of the file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "config/testing.h"

namespace gpugate::config {
namespace {

using testing::ErrorCase;
using testing::ExpectErrors;

TEST(ParseConfig, DocumentErrors) {
  ExpectErrors({
      {"a: [1\nb: 2\n", "gpugate.yaml:2: end of sequence flow not found"},
      {"listen: \"\\q\"\n", "gpugate.yaml:1: unknown escape character: q"},
      {"- listen\n", "gpugate.yaml:1: the top level must be a map of settings, got a list"},
      {"listen\n", "gpugate.yaml:1: the top level must be a map of settings, got \"listen\""},
      {"listen: \"0.0.0.0:1\"\n---\nlisten: \"0.0.0.0:2\"\n",
       "gpugate.yaml:3: only one YAML document is allowed"},
      {"quotas: {}\n",
       "gpugate.yaml:1: quotas: unknown key (known: listen, shutdownDelay, "
       "shutdownDelaySeconds, server, tls, exemptNamespaces, resources, mutation, security, "
       "modes, cluster, audit, quota, usage)"},
      {"listen: \"0.0.0.0:1\"\nListen: \"0.0.0.0:2\"\n",
       "gpugate.yaml:2: Listen: unknown key (known: listen, shutdownDelay, "
       "shutdownDelaySeconds, server, tls, exemptNamespaces, resources, mutation, security, "
       "modes, cluster, audit, quota, usage)"},
      {"shutdownDelaySeconds: -1\n",
       "gpugate.yaml:1: shutdownDelaySeconds: must be a number of seconds from 0 to 300, got "
       "\"-1\""},
      {"shutdownDelaySeconds: 301\n",
       "gpugate.yaml:1: shutdownDelaySeconds: must be a number of seconds from 0 to 300, got "
       "\"301\""},
      {"shutdownDelaySeconds: 5s\n",
       "gpugate.yaml:1: shutdownDelaySeconds: must be a number of seconds from 0 to 300, got "
       "\"5s\""},
      {"security: {}\nlisten: \"0.0.0.0:1\"\nsecurity: {}\n",
       "gpugate.yaml:3: security: duplicate key (first at line 1)"},
      {"? [a]\n: 1\n", "gpugate.yaml:1: keys must be strings, got a list"},
      {"mutation:\n  ? {a: 1}\n  : 1\n",
       "gpugate.yaml:2: mutation: keys must be strings, got a map"},
  });
}

TEST(ParseConfig, ListenAndTlsErrors) {
  ExpectErrors({
      {"listen: 8443\n",
       "gpugate.yaml:1: listen: must be HOST:PORT, e.g. 0.0.0.0:8443, got \"8443\""},
      {"listen: \":8443\"\n",
       "gpugate.yaml:1: listen: must be HOST:PORT, e.g. 0.0.0.0:8443, got \":8443\""},
      {"listen: \"0.0.0.0:\"\n",
       "gpugate.yaml:1: listen: port must be a number from 0 to 65535, got \"0.0.0.0:\""},
      {"listen: \"0.0.0.0:65536\"\n",
       "gpugate.yaml:1: listen: port must be a number from 0 to 65535, got \"0.0.0.0:65536\""},
      {"listen: \"0.0.0.0:-1\"\n",
       "gpugate.yaml:1: listen: port must be a number from 0 to 65535, got \"0.0.0.0:-1\""},
      {"listen: \"0.0.0.0:https\"\n",
       "gpugate.yaml:1: listen: port must be a number from 0 to 65535, got \"0.0.0.0:https\""},
      {"listen: \"::1:8443\"\n",
       "gpugate.yaml:1: listen: an IPv6 host needs brackets, e.g. [::]:8443, got \"::1:8443\""},
      {"listen: \"[nope]:8443\"\n",
       "gpugate.yaml:1: listen: not an IPv6 address, got \"[nope]:8443\""},
      {"listen: \"300.1.1.1:8443\"\n",
       "gpugate.yaml:1: listen: not an IPv4 address, got \"300.1.1.1:8443\""},
      {"listen: \"my_host:8443\"\n",
       "gpugate.yaml:1: listen: host must be an IP address or a DNS name, got \"my_host:8443\""},
      {"listen: [\"0.0.0.0:8443\"]\n", "gpugate.yaml:1: listen: must be a string, got a list"},
      {"listen:\n", "gpugate.yaml:1: listen: must be a string, got null"},
      {"tls: /etc/tls\n", "gpugate.yaml:1: tls: must be a map, got \"/etc/tls\""},
      {"tls:\n\nlisten: \"0.0.0.0:1\"\n", "gpugate.yaml:1: tls: must be a map, got null"},
      {"tls:\n  certFile: \"\"\n", "gpugate.yaml:2: tls.certFile: must be a file path, got \"\""},
      {"tls:\n  keyfile: /k\n",
       "gpugate.yaml:2: tls.keyfile: unknown key (known: certFile, keyFile, clientCAFile, "
       "openPaths, reloadInterval, reloadIntervalSeconds)"},
      {"tls: {clientCAFile: [a]}\n",
       "gpugate.yaml:1: tls.clientCAFile: must be a string, got a list"},
      {"tls:\n  openPaths: /metrics\n",
       "gpugate.yaml:2: tls.openPaths: must be a list, got \"/metrics\""},
      {"tls:\n  openPaths:\n    - /metrics\n    - /validate\n",
       "gpugate.yaml:4: tls.openPaths[1]: must be /metrics, /quota or /usage (/healthz and /readyz "
       "are always open, /validate and /mutate never), got \"/validate\""},
      {"tls: {openPaths: [metrics]}\n",
       "gpugate.yaml:1: tls.openPaths[0]: must be /metrics, /quota or /usage (/healthz and /readyz "
       "are always open, /validate and /mutate never), got \"metrics\""},
      {"tls: {openPaths: [/quota, /metrics, /quota]}\n",
       "gpugate.yaml:1: tls.openPaths[2]: \"/quota\" is already listed at tls.openPaths[0]"},
      {"tls: {reloadIntervalSeconds: 0}\n",
       "gpugate.yaml:1: tls.reloadIntervalSeconds: must be a positive integer, got \"0\""},
      {"tls: {reloadIntervalSeconds: 3601}\n",
       "gpugate.yaml:1: tls.reloadIntervalSeconds: must be a number of seconds from 1 to 3600, "
       "got \"3601\""},
      {"tls: {reloadIntervalSeconds: \"10\"}\n",
       "gpugate.yaml:1: tls.reloadIntervalSeconds: must be a positive integer, got \"10\" (a "
       "quoted string)"},
  });
}

TEST(ParseConfig, ResourceErrors) {
  ExpectErrors({
      // The two examples from the task description, with their exact line numbers.
      {"listen: \"0.0.0.0:8443\"\n"
       "resources:\n"
       "  - name: nvidia.com/gpu\n"
       "    maxPerContainer: 1\n"
       "  - pattern: \"nvidia.com/mig-*\"\n"
       "    schedulerName: volcano\n"
       "    maxPerContainer: two\n",
       "gpugate.yaml:7: resources[1].maxPerContainer: must be a positive integer, got \"two\""},
      {"resources: [{name: a.io/b, maxPerContainer: 0}]\n",
       "gpugate.yaml:1: resources[0].maxPerContainer: must be a positive integer, got \"0\""},
      {"resources: [{name: a.io/b, maxPerContainer: -1}]\n",
       "gpugate.yaml:1: resources[0].maxPerContainer: must be a positive integer, got \"-1\""},
      {"resources: [{name: a.io/b, maxPerContainer: 1.5}]\n",
       "gpugate.yaml:1: resources[0].maxPerContainer: must be a positive integer, got \"1.5\""},
      {"resources: [{name: a.io/b, maxPerContainer: \"2\"}]\n",
       "gpugate.yaml:1: resources[0].maxPerContainer: must be a positive integer, got \"2\" (a "
       "quoted string)"},
      {"resources: [{name: a.io/b, maxPerContainer: 99999999999999999999}]\n",
       "gpugate.yaml:1: resources[0].maxPerContainer: must be a positive integer, got "
       "\"99999999999999999999\""},
      {"resources: [{name: a.io/b, toleration: yes}]\n",
       "gpugate.yaml:1: resources[0].toleration: must be true or false, got \"yes\""},
      {"resources: [{name: a.io/b, toleration: \"false\"}]\n",
       "gpugate.yaml:1: resources[0].toleration: must be true or false, got \"false\" (a quoted "
       "string)"},
      {"resources: [{name: a.io/b, toleration: 1}]\n",
       "gpugate.yaml:1: resources[0].toleration: must be true or false, got \"1\""},
      {"resources: [{name: a.io/b, toleration: True}]\n",
       "gpugate.yaml:1: resources[0].toleration: must be true or false, got \"True\""},
      {"resources: [{name: gpu}]\n",
       "gpugate.yaml:1: resources[0].name: must be an extended resource name such as "
       "\"nvidia.com/gpu\", got \"gpu\""},
      {"resources: [{name: kubernetes.io/gpu}]\n",
       "gpugate.yaml:1: resources[0].name: must be an extended resource name such as "
       "\"nvidia.com/gpu\", got \"kubernetes.io/gpu\""},
      {"resources: [{name: \"nvidia.com/mig-*\"}]\n",
       "gpugate.yaml:1: resources[0].name: must be an extended resource name such as "
       "\"nvidia.com/gpu\", got \"nvidia.com/mig-*\""},
      {"resources: [{pattern: nvidia.com/gpu}]\n",
       "gpugate.yaml:1: resources[0].pattern: has no '*'; use name for a single resource, got "
       "\"nvidia.com/gpu\""},
      {"resources: [{pattern: \"*\"}]\n",
       "gpugate.yaml:1: resources[0].pattern: must be an extended resource name with '*' "
       "wildcards such as \"nvidia.com/mig-*\", got \"*\""},
      {"resources: [{pattern: [\"a.io/*\"]}]\n",
       "gpugate.yaml:1: resources[0].pattern: must be a string, got a list"},
      {"resources:\n  - maxPerContainer: 1\n",
       "gpugate.yaml:2: resources[0]: needs a name or a pattern"},
      {"resources:\n  - name: a.io/b\n    pattern: \"a.io/*\"\n",
       "gpugate.yaml:2: resources[0]: must have only one of name and pattern"},
      {"resources:\n  - name: a.io/b\n  - name: a.io/c\n  - name: a.io/b\n",
       "gpugate.yaml:4: resources[2]: \"a.io/b\" is already listed at resources[0]"},
      {"resources:\n  - name: a.io/b\n    maxPerContainer: 1\n    maxPerContainer: 2\n",
       "gpugate.yaml:4: resources[0].maxPerContainer: duplicate key (first at line 3)"},
      {"resources:\n  - name: a.io/b\n    max: 1\n",
       "gpugate.yaml:3: resources[0].max: unknown key (known: name, pattern, maxPerContainer, "
       "schedulerName, toleration)"},
      {"resources: [{name: a.io/b, schedulerName: \"\"}]\n",
       "gpugate.yaml:1: resources[0].schedulerName: must be a scheduler name such as "
       "\"volcano\", got \"\""},
      {"resources: [{name: a.io/b, schedulerName: Volcano}]\n",
       "gpugate.yaml:1: resources[0].schedulerName: must be a scheduler name such as "
       "\"volcano\", got \"Volcano\""},
      {"resources: []\n",
       "gpugate.yaml:1: resources: must list at least one resource; leave the key out for the "
       "built-in list"},
      {"resources: {name: a.io/b}\n", "gpugate.yaml:1: resources: must be a list, got a map"},
      {"resources:\n  - a.io/b\n", "gpugate.yaml:2: resources[0]: must be a map, got \"a.io/b\""},
  });
}

TEST(ParseConfig, NamespaceMutationAndSecurityErrors) {
  ExpectErrors({
      {"exemptNamespaces: kube-system\n",
       "gpugate.yaml:1: exemptNamespaces: must be a list, got \"kube-system\""},
      {"exemptNamespaces:\n  - kube-system\n  - Kube_System\n",
       "gpugate.yaml:3: exemptNamespaces[1]: must be a namespace name such as \"kube-system\", got "
       "\"Kube_System\""},
      {"exemptNamespaces: [a, b, a]\n",
       "gpugate.yaml:1: exemptNamespaces[2]: \"a\" is already listed at exemptNamespaces[0]"},
      {"mutation:\n  schedulerName: x\n  colimit: 50\n",
       "gpugate.yaml:3: mutation.colimit: unknown key (known: schedulerName, tolerations, "
       "coreLimit)"},
      {"mutation: [coreLimit]\n", "gpugate.yaml:1: mutation: must be a map, got a list"},
      {"mutation: {schedulerName: my_scheduler}\n",
       "gpugate.yaml:1: mutation.schedulerName: must be a scheduler name such as \"volcano\", got "
       "\"my_scheduler\""},
      {"mutation: {coreLimit: abc}\n",
       "gpugate.yaml:1: mutation.coreLimit: must be \"request\", \"off\" or an integer from 1 to "
       "100, got \"abc\""},
      {"mutation: {coreLimit: 0}\n",
       "gpugate.yaml:1: mutation.coreLimit: must be \"request\", \"off\" or an integer from 1 to "
       "100, got \"0\""},
      {"mutation: {coreLimit: 101}\n",
       "gpugate.yaml:1: mutation.coreLimit: must be \"request\", \"off\" or an integer from 1 to "
       "100, got \"101\""},
      {"mutation: {coreLimit: \"50\"}\n",
       "gpugate.yaml:1: mutation.coreLimit: must be \"request\", \"off\" or an integer from 1 to "
       "100, got \"50\" (a quoted string)"},
      {"mutation: {coreLimit: Request}\n",
       "gpugate.yaml:1: mutation.coreLimit: must be \"request\", \"off\" or an integer from 1 to "
       "100, got \"Request\""},
      {"mutation: {coreLimit: [50]}\n",
       "gpugate.yaml:1: mutation.coreLimit: must be \"request\", \"off\" or an integer from 1 to "
       "100, got a list"},
      {"mutation: {tolerations: {key: gpu}}\n",
       "gpugate.yaml:1: mutation.tolerations: must be a list, got a map"},
      {"mutation:\n  tolerations:\n    - {key: gpu, operator: exists}\n",
       "gpugate.yaml:3: mutation.tolerations[0].operator: must be Exists or Equal, got \"exists\""},
      {"mutation:\n  tolerations:\n    - {key: gpu, operator: Exists, effect: NoExec}\n",
       "gpugate.yaml:3: mutation.tolerations[0].effect: must be NoSchedule, PreferNoSchedule, "
       "NoExecute or \"\", got \"NoExec\""},
      {"mutation:\n  tolerations:\n    - {key: gpu, operator: Exists, value: \"yes\"}\n",
       "gpugate.yaml:3: mutation.tolerations[0]: value must be empty when operator is Exists, got "
       "\"yes\""},
      {"mutation:\n  tolerations:\n    - {effect: NoSchedule}\n",
       "gpugate.yaml:3: mutation.tolerations[0]: an empty key requires operator Exists"},
      {"mutation:\n  tolerations:\n    - {key: \"gpu/a/b\", operator: Exists}\n",
       "gpugate.yaml:3: mutation.tolerations[0].key: must be a taint key such as "
       "\"nvidia.com/gpu\", "
       "got \"gpu/a/b\""},
      {"mutation:\n  tolerations:\n    - {key: gpu, value: \"two words\"}\n",
       "gpugate.yaml:3: mutation.tolerations[0].value: must be a taint value (a label value), got "
       "\"two words\""},
      {"mutation:\n  tolerations:\n    - key: gpu\n      operator: Exists\n      "
       "tolerationSeconds: 30\n",
       "gpugate.yaml:5: mutation.tolerations[0].tolerationSeconds: unknown key (known: key, "
       "operator, value, effect)"},
      {"security:\n  denyPrivilegedGPU: no\n",
       "gpugate.yaml:2: security.denyPrivilegedGPU: must be true or false, got \"no\""},
      {"security:\n  denyVisibleDevicesEnv: \"true\"\n",
       "gpugate.yaml:2: security.denyVisibleDevicesEnv: must be true or false, got \"true\" (a "
       "quoted string)"},
      {"security:\n  denyVisibleDevicesEnv:\n",
       "gpugate.yaml:2: security.denyVisibleDevicesEnv: must be true or false, got null"},
      {"security:\n  denyPrivileged: true\n",
       "gpugate.yaml:2: security.denyPrivileged: unknown key (known: denyVisibleDevicesEnv, "
       "denyPrivilegedGPU)"},
  });
}

TEST(ParseConfig, QuotaErrors) {
  ExpectErrors({
      {"quota: [stateFile]\n", "gpugate.yaml:1: quota: must be a map, got a list"},
      {"quota:\n", "gpugate.yaml:1: quota: must be a map, got null"},
      {"quota:\n  statefile: /x\n",
       "gpugate.yaml:2: quota.statefile: unknown key (known: stateFile, namespaces, weights, "
       "flavors, defaultFlavors)"},
      {"quota:\n  stateFile: [/x]\n",
       "gpugate.yaml:2: quota.stateFile: must be a string, got a list"},
      {"quota:\n  namespaces: [team-a]\n",
       "gpugate.yaml:2: quota.namespaces: must be a map, got a list"},
      {"quota:\n  namespaces:\n", "gpugate.yaml:2: quota.namespaces: must be a map, got null"},
      {"quota:\n  namespaces:\n    Team_A: {nvidia.com/gpu: 1}\n",
       "gpugate.yaml:3: quota.namespaces.Team_A: must be a namespace name such as \"team-a\", got "
       "\"Team_A\""},
      {"quota:\n  namespaces:\n    team-a: 4\n",
       "gpugate.yaml:3: quota.namespaces.team-a: must be a map, got \"4\""},
      {"quota:\n  namespaces:\n    team-a: {}\n    team-b: {}\n    team-a: {}\n",
       "gpugate.yaml:5: quota.namespaces.team-a: duplicate key (first at line 3)"},
      {"quota:\n  namespaces:\n    team-a:\n      nvidia.com/gpu: 1\n      nvidia.com/gpu: 2\n",
       "gpugate.yaml:5: quota.namespaces.team-a.nvidia.com/gpu: duplicate key (first at line 4)"},
      {"quota:\n  namespaces:\n    team-a:\n      nvidia.com/gpus: 4\n",
       "gpugate.yaml:4: quota.namespaces.team-a.nvidia.com/gpus: must be a resource gpugate "
       "manages "
       "(see resources) or a figure from quota.weights, got \"nvidia.com/gpus\""},
      {"quota: {namespaces: {team-a: {cpu: 4}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.cpu: must be a resource gpugate manages (see "
       "resources) or a figure from quota.weights, got \"cpu\""},
      {"quota: {namespaces: {team-a: {\"nvidia.com/mig-*\": 4}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/mig-*: must be an exact resource name, "
       "not a pattern, got \"nvidia.com/mig-*\""},
      // The file replaces the built-in list, so amd.com/gpu is no longer managed.
      {"quota: {namespaces: {team-a: {amd.com/gpu: 1}}}\nresources: [{name: nvidia.com/gpu}]\n",
       "gpugate.yaml:1: quota.namespaces.team-a.amd.com/gpu: must be a resource gpugate manages "
       "(see resources) or a figure from quota.weights, got \"amd.com/gpu\""},
      {"quota: {namespaces: {team-a: {gpu-equivalents: 4}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.gpu-equivalents: must be a resource gpugate "
       "manages (see resources) or a figure from quota.weights, got \"gpu-equivalents\""},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: -1}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got \"-1\""},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: 0.0001}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got \"0.0001\""},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: 1e3}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got \"1e3\""},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: 4Gi}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got \"4Gi\""},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: 9223372036854775.808}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got \"9223372036854775.808\""},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: \"4\"}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got \"4\" (a quoted string)"},
      {"quota: {namespaces: {team-a: {nvidia.com/gpu: \"0.5\"}}}\n",
       "gpugate.yaml:1: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got \"0.5\" (a quoted string)"},
      {"quota:\n  namespaces:\n    team-a:\n      nvidia.com/gpu:\n",
       "gpugate.yaml:4: quota.namespaces.team-a.nvidia.com/gpu: must be a non-negative number with "
       "at most 3 decimals, got null"},
      {"quota:\n  weights: [gpu-equivalents]\n",
       "gpugate.yaml:2: quota.weights: must be a map, got a list"},
      {"quota:\n  weights:\n    gpu equivalents: {nvidia.com/gpu: 1}\n",
       "gpugate.yaml:3: quota.weights.gpu equivalents: must be a figure name such as "
       "\"gpu-equivalents\", got \"gpu equivalents\""},
      {"quota:\n  weights:\n    nvidia.com/gpu: {amd.com/gpu: 1}\n",
       "gpugate.yaml:3: quota.weights.nvidia.com/gpu: is a managed resource; a figure needs a name "
       "of its own, got \"nvidia.com/gpu\""},
      {"quota:\n  weights:\n    nvidia.com/mig-all: {nvidia.com/gpu: 1}\n",
       "gpugate.yaml:3: quota.weights.nvidia.com/mig-all: is a managed resource; a figure needs a "
       "name of its own, got \"nvidia.com/mig-all\""},
      {"quota:\n  weights:\n    gpu-equivalents: [nvidia.com/gpu]\n",
       "gpugate.yaml:3: quota.weights.gpu-equivalents: must be a map, got a list"},
      {"quota:\n  weights:\n    gpu-equivalents: {}\n",
       "gpugate.yaml:3: quota.weights.gpu-equivalents: must weigh at least one resource"},
      {"quota:\n  weights:\n    gpu-equivalents:\n      nvidia.com/gpu: 0\n",
       "gpugate.yaml:4: quota.weights.gpu-equivalents.nvidia.com/gpu: must be a positive number "
       "with at most 3 decimals, got \"0\""},
      {"quota:\n  weights:\n    gpu-equivalents:\n      tencent.com/vcuda-core: 0.0001\n",
       "gpugate.yaml:4: quota.weights.gpu-equivalents.tencent.com/vcuda-core: must be a positive "
       "number with at most 3 decimals, got \"0.0001\""},
      {"quota:\n  weights:\n    gpu-equivalents:\n      \"nvidia.com/mig-*\": 0.5\n",
       "gpugate.yaml:4: quota.weights.gpu-equivalents.nvidia.com/mig-*: must be an exact resource "
       "name, not a pattern, got \"nvidia.com/mig-*\""},
      {"quota:\n  weights:\n    gpu-equivalents:\n      example.com/fpga: 1\n",
       "gpugate.yaml:4: quota.weights.gpu-equivalents.example.com/fpga: must be a resource gpugate "
       "manages (see resources), got \"example.com/fpga\""},
      // A figure is made of resources, not of other figures.
      {"quota:\n  weights:\n    a: {nvidia.com/gpu: 1}\n    b: {a: 2}\n",
       "gpugate.yaml:4: quota.weights.b.a: must be a resource gpugate manages (see resources), got "
       "\"a\""},
      // quota is read after the other sections, so their mistakes are reported first.
      {"quota: {stateFile: [x]}\nsecurity: {denyPrivilegedGPU: no}\n",
       "gpugate.yaml:2: security.denyPrivilegedGPU: must be true or false, got \"no\""},
  });
}

}  // namespace
}  // namespace gpugate::config
