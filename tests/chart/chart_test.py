#!/usr/bin/env python3
"""The Helm chart (manifests/helm/gpugate) against what it must render.

  chart_test.py HELM KUBECTL                 helm lint; the default render equals manifests/base,
                                             each mode equals its kustomize overlay; the values
                                             matrix and its table of assertions; refusals of
                                             mistyped values (values.schema.json) and of
                                             contradictions (the templates' fail)
  chart_test.py HELM KUBECTL --server KUBECONFIG
                                             the same matrix rendered with the API server's
                                             version and sent to it with `kubectl apply
                                             --dry-run=server` (tests/chart/e2e.sh)

Prints one line per check and ends with "N passed, M failed"; exit status 1 when one failed.
"""
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHART = os.path.join(ROOT, "manifests/helm/gpugate")
NS = "gpugate-system"
HELM, KUBECTL = sys.argv[1], sys.argv[2]
SERVER = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--server" else None

passed = failed = 0


def check(name, fn):
    """Runs one assertion: fn returns None (or True) when it holds, raises or returns a message."""
    global passed, failed
    try:
        result = fn()
        problem = None if result in (None, True) else (result or "returned False")
    except Exception as e:  # an assertion's failure, or a render that should have worked
        problem = f"{type(e).__name__}: {e}"
    if problem is None:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}")
        for line in str(problem).splitlines()[:40]:
            print(f"      {line}")


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])}... exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def values_file(values):
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    yaml.safe_dump(values, f)
    f.close()
    return f.name


def template_args(values=None, kube_version=None, namespace=NS, extra=()):
    args = [HELM, "template", "gpugate", CHART, "--namespace", namespace, *extra]
    if values:
        args += ["-f", values_file(values)]
    if kube_version:
        args += ["--kube-version", kube_version]
    return args


class Render:
    """A render: its objects by (kind, name), and its hooks apart."""

    def __init__(self, docs):
        self.hooks = [d for d in docs if (d["metadata"].get("annotations") or {}).get("helm.sh/hook")]
        self.objects = {(d["kind"], d["metadata"]["name"]): d for d in docs if d not in self.hooks}
        self.docs = [d for d in docs if d not in self.hooks]

    def get(self, kind, name="gpugate"):
        obj = self.objects.get((kind, name))
        if obj is None:
            raise AssertionError(f"no {kind}/{name} in the render: {sorted(self.objects)}")
        return obj

    def has(self, kind, name="gpugate"):
        return (kind, name) in self.objects

    def kinds(self):
        return sorted({k for k, _ in self.objects})

    def config(self):
        return yaml.safe_load(self.get("ConfigMap", "gpugate-config")["data"]["config.yaml"])

    def pod(self):
        return self.get("Deployment")["spec"]["template"]

    def container(self):
        return self.pod()["spec"]["containers"][0]

    def webhooks(self):
        return [self.get(k)["webhooks"][0] for k in ("MutatingWebhookConfiguration",
                                                     "ValidatingWebhookConfiguration")]


def render(values=None, kube_version=None, namespace=NS):
    out = run(*template_args(values, kube_version, namespace))
    return Render([d for d in yaml.safe_load_all(out) if d])


def refused(values, *words):
    """The render is refused, and the message has every one of words."""
    p = subprocess.run(template_args(values), capture_output=True, text=True)
    if p.returncode == 0:
        return "rendered, but should have been refused"
    missing = [w for w in words if w not in p.stderr]
    if missing:
        return f"refused without {missing}:\n{p.stderr}"
    return None


def kustomize(path):
    out = run(KUBECTL, "kustomize", os.path.join(ROOT, path))
    return [d for d in yaml.safe_load_all(out) if d]


# --- the default render against manifests/base, the modes against their overlays ------------

def cel(expression):
    """A CEL expression with its layout taken out (its string literals hold no spaces)."""
    return re.sub(r" ?([()\[\],|&!=?:<>.+]) ?", r"\1", re.sub(r"\s+", " ", expression)).strip()


def normalised(doc):
    """What may differ in layout only: config.yaml as YAML, matchConditions as CEL tokens."""
    doc = json.loads(json.dumps(doc))
    if doc["kind"] == "ConfigMap" and "config.yaml" in doc.get("data", {}):
        doc["data"]["config.yaml"] = yaml.safe_load(doc["data"]["config.yaml"])
    for w in doc.get("webhooks") or []:
        for c in w.get("matchConditions") or []:
            c["expression"] = cel(c["expression"])
    if doc["kind"] == "Deployment":  # named items: their order means nothing to Kubernetes
        spec = doc["spec"]["template"]["spec"]
        spec["volumes"].sort(key=lambda v: v["name"])
        for c in spec["containers"]:
            c.get("volumeMounts", []).sort(key=lambda v: v["name"])
    return doc


def openssl(*args, stdin=None):
    p = subprocess.run(["openssl", *args], input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"openssl {args[0]}: {p.stderr.strip()}")
    return p.stdout


def certificate_is_served_right(r, namespace=NS):
    """The generated Secrets: a CA, a serving certificate it signs for the Service's names, and
    the webhooks' caBundle is that CA. Returns None or a problem."""
    tls = r.get("Secret", "gpugate-tls")
    ca = r.get("Secret", "gpugate-tls-ca")
    assert tls["type"] == "kubernetes.io/tls" and set(tls["data"]) == {"tls.crt", "tls.key", "ca.crt"}
    assert tls["data"]["ca.crt"] == ca["data"]["tls.crt"], "ca.crt is not the CA Secret's"
    for w in r.webhooks():
        assert w["clientConfig"]["caBundle"] == ca["data"]["tls.crt"], "caBundle is not the CA"
    with tempfile.TemporaryDirectory() as d:
        for name, b64 in (("ca.crt", ca["data"]["tls.crt"]), ("tls.crt", tls["data"]["tls.crt"]),
                          ("tls.key", tls["data"]["tls.key"])):
            with open(os.path.join(d, name), "wb") as f:
                f.write(base64.b64decode(b64))
        openssl("verify", "-CAfile", f"{d}/ca.crt", f"{d}/tls.crt")
        sans = openssl("x509", "-in", f"{d}/tls.crt", "-noout", "-ext", "subjectAltName")
        for host in (f"gpugate.{namespace}.svc", f"gpugate.{namespace}.svc.cluster.local"):
            assert f"DNS:{host}" in sans, f"{host} not in {sans}"
        # the key is the certificate's
        pub_cert = openssl("x509", "-in", f"{d}/tls.crt", "-noout", "-pubkey")
        pub_key = openssl("pkey", "-in", f"{d}/tls.key", "-pubout")
        assert pub_cert == pub_key, "tls.key does not match tls.crt"


def equal_to(kustomization, r, namespace_object=True, config_adds=()):
    """r's objects, less what the chart adds on purpose (each asserted first), equal the
    kustomization's object for object. config_adds: keys of values.yaml's config that the
    chart's config.yaml has and the kustomization's lacks."""
    want = {(d["kind"], d["metadata"]["name"]): normalised(d) for d in kustomize(kustomization)}
    # 1. Helm makes the namespace (--create-namespace); the API server sets the label the
    #    base's Namespace writes out.
    if namespace_object:
        assert want.pop(("Namespace", NS), None), "the base has no Namespace?"
    got = {}
    for key, d in r.objects.items():
        d = normalised(d)
        if d["kind"] == "Deployment":
            # 2. the config's checksum, so a changed config rolls the pods
            annotations = d["spec"]["template"]["metadata"]["annotations"]
            config = r.get("ConfigMap", "gpugate-config")["data"]["config.yaml"]
            assert annotations.pop("checksum/config") == hashlib.sha256(
                config.rstrip("\n").encode()).hexdigest(), "checksum/config is not the config's"
        if key in (("Secret", "gpugate-tls"), ("Secret", "gpugate-tls-ca")):
            continue  # 3. the generated certificate, checked by certificate_is_served_right
        for w in d.get("webhooks") or []:
            w["clientConfig"].pop("caBundle", None)  # 3. ...and its CA in the webhooks
        if d["kind"] == "ConfigMap" and config_adds:
            defaults = yaml.safe_load(open(os.path.join(CHART, "values.yaml")))["config"]
            for name in config_adds:  # 4. the chart's config defaults, where the overlay has fewer
                assert d["data"]["config.yaml"].pop(name) == defaults[name], name
        got[key] = d
    problems = []
    for key in sorted(set(want) | set(got)):
        if key not in got:
            problems.append(f"{key} is in {kustomization} but not rendered")
        elif key not in want:
            problems.append(f"{key} is rendered but not in {kustomization}")
        elif got[key] != want[key]:
            a = yaml.safe_dump(want[key], sort_keys=True).splitlines()
            b = yaml.safe_dump(got[key], sort_keys=True).splitlines()
            import difflib
            problems.append(f"{key} differs:\n" + "\n".join(
                difflib.unified_diff(a, b, "kustomize", "helm", lineterm="", n=1)))
    return "\n".join(problems) or None


# --- the matrix: values, the Kubernetes version, and what must hold -------------------------

def all_(*conds):
    def f(r):
        for c in conds:
            msg = c(r)
            if msg not in (None, True):
                return msg
    return f


def conditions(r):
    return [[c["name"] for c in w.get("matchConditions") or []] for w in r.webhooks()]


def has_conditions(r):
    assert conditions(r) == [["gpu-pod"], ["gpu-workload-or-quota-release"]], conditions(r)


def no_conditions(r):
    assert conditions(r) == [[], []], conditions(r)


def no_cert_manager(r):
    for k in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
        annotations = r.get(k)["metadata"].get("annotations") or {}
        assert "cert-manager.io/inject-ca-from" not in annotations, f"{k}: {annotations}"
    assert not r.has("Certificate", "gpugate-serving") and not r.has("Issuer", "gpugate-ca")


def pdb(**want):
    def f(r):
        spec = r.get("PodDisruptionBudget")["spec"]
        got = {k: spec.get(k) for k in ("minAvailable", "maxUnavailable")}
        assert got == {"minAvailable": want.get("minAvailable"),
                       "maxUnavailable": want.get("maxUnavailable")}, got
    return f


def replicas(n):
    def f(r):
        assert r.get("Deployment")["spec"]["replicas"] == n, r.get("Deployment")["spec"]["replicas"]
    return f


def config_has(path, value):
    def f(r):
        node = r.config()
        for part in path.split("."):
            assert isinstance(node, dict) and part in node, f"config has no {path}: {r.config()}"
            node = node[part]
        assert node == value, f"config {path} = {node!r}, want {value!r}"
    return f


def config_lacks(path):
    def f(r):
        node = r.config()
        parts = path.split(".")
        for part in parts[:-1]:
            node = (node or {}).get(part)
        assert not (isinstance(node, dict) and parts[-1] in node), f"config has {path}: {r.config()}"
    return f


def expression(r, i):
    return r.webhooks()[i]["matchConditions"][0]["expression"]


def every_object(pred, what):
    def f(r):
        bad = [k for k, d in r.objects.items() if not pred(d)]
        assert not bad, f"without {what}: {bad}"
    return f


def b64(text):
    return base64.b64encode(text.encode()).decode()


TEST_CA = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----"

# (name, values, kube_version, assertion). kube_version None: the version helm assumes offline
# (its client-go's, 1.37), or with --server the API server's.
MATRIX = [
    ("defaults", None, None, all_(
        has_conditions, no_cert_manager, pdb(minAvailable=1), replicas(2),
        config_has("cluster.enabled", True),
        config_has("exemptNamespaces", ["kube-system", NS]),
        config_has("shutdownDelaySeconds", 5),
        lambda r: certificate_is_served_right(r),
        lambda r: r.container()["image"] == "gpugate:0.1.0" or r.container()["image"],
        lambda r: not r.has("ServiceMonitor") and not r.has("ConfigMap", "gpugate-grafana-dashboard"),
        lambda r: [w["clientConfig"]["service"] for w in r.webhooks()] == [
            {"namespace": NS, "name": "gpugate", "port": 443, "path": p} for p in ("/mutate", "/validate")])),
    ("Kubernetes 1.27: no matchConditions", None, "1.27.16", no_conditions),
    ("Kubernetes 1.28: matchConditions", None, "1.28.0", has_conditions),
    ("matchConditions never", {"webhooks": {"matchConditions": "never"}}, None, no_conditions),
    ("matchConditions always, even on 1.27", {"webhooks": {"matchConditions": "always"}}, "1.27.16",
     has_conditions),
    ("cert-manager", {"certificates": {"mode": "cert-manager"}}, None, all_(
        lambda r: [r.get(k)["metadata"]["annotations"]["cert-manager.io/inject-ca-from"]
                   for k in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")]
        == [f"{NS}/gpugate-serving"] * 2 or "inject-ca-from is wrong",
        lambda r: all("caBundle" not in w["clientConfig"] for w in r.webhooks()) or "a caBundle",
        lambda r: not r.has("Secret", "gpugate-tls") or "a Secret beside cert-manager's",
        lambda r: r.get("Certificate", "gpugate-serving")["spec"]["secretName"] == "gpugate-tls",
        lambda r: r.get("Certificate", "gpugate-ca")["spec"]["privateKey"]["rotationPolicy"] == "Never")),
    ("an existing Secret and its CA", {"certificates": {"mode": "existingSecret", "secretName": "mine",
                                                        "existingSecret": {"caBundle": TEST_CA}}}, None, all_(
        no_cert_manager,
        lambda r: [w["clientConfig"]["caBundle"] for w in r.webhooks()] == [b64(TEST_CA)] * 2,
        lambda r: not any(k == "Secret" for k, _ in r.objects) or "the chart made a Secret",
        lambda r: r.pod()["spec"]["volumes"][0]["secret"]["secretName"] == "mine")),
    ("the local ledger", {"ledger": {"mode": "local"}}, None, all_(
        replicas(1), pdb(maxUnavailable=1), config_has("quota.stateFile", "/var/lib/gpugate/ledger.journal"),
        config_lacks("cluster"),
        lambda r: r.get("Deployment")["spec"]["strategy"] == {"type": "Recreate"},
        lambda r: r.pod()["spec"]["automountServiceAccountToken"] is False,
        lambda r: not r.has("ClusterRole") and not r.has("ClusterRoleBinding"),
        lambda r: r.get("PersistentVolumeClaim", "gpugate-state")["spec"]["resources"]["requests"]["storage"] == "1Gi")),
    ("three replicas, minAvailable 2", {"replicas": 3, "podDisruptionBudget": {"minAvailable": 2}}, None,
     all_(replicas(3), pdb(minAvailable=2))),
    ("maxUnavailable 50%", {"podDisruptionBudget": {"maxUnavailable": "50%"}}, None, pdb(maxUnavailable="50%")),
    ("no PodDisruptionBudget", {"podDisruptionBudget": {"enabled": False}}, None,
     lambda r: not r.has("PodDisruptionBudget") or "rendered"),
    ("failure policy, timeout, namespaceSelector", {"webhooks": {
        "failurePolicy": "Ignore", "timeoutSeconds": 10,
        "namespaceSelector": {"matchLabels": {"gpu": "true"}}}}, None,
     lambda r: [(w["failurePolicy"], w["timeoutSeconds"], w["namespaceSelector"]) for w in r.webhooks()]
     == [("Ignore", 10, {"matchLabels": {"gpu": "true"}})] * 2 or "not as set"),
    ("gpugate outside the cluster (webhooks.url)", {"webhooks": {"url": "https://127.0.0.1:9443/"},
                                                     "certificates": {"extraIPAddresses": ["127.0.0.1"]}}, None,
     all_(lambda r: [w["clientConfig"].get("url") for w in r.webhooks()]
          == ["https://127.0.0.1:9443/mutate", "https://127.0.0.1:9443/validate"] or "urls",
          lambda r: all("service" not in w["clientConfig"] for w in r.webhooks()) or "service set too",
          lambda r: r.get("Secret", "gpugate-tls")["metadata"]["annotations"][
              "gpugate.io/certificate-names"].endswith(",127.0.0.1") or "IP not covered")),
    ("the config: modes, quota, models", {"config": {
        "modes": {"default": "audit", "namespaces": [{"pattern": "*", "mutate": False}]},
        "quota": {"namespaces": {"team-a": {"nvidia.com/gpu": 4}},
                  "flavors": {"a100": {"nodeLabels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}}}},
        "cluster": {"reconcileInterval": "10s"}}}, None, all_(
        config_has("modes.default", "audit"), config_has("quota.namespaces.team-a", {"nvidia.com/gpu": 4}),
        config_has("quota.flavors.a100.nodeLabels", {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}),
        config_has("cluster.enabled", True), config_has("cluster.reconcileInterval", "10s"),
        config_has("audit.customResources", yaml.safe_load(open(os.path.join(CHART, "values.yaml")))
                   ["config"]["audit"]["customResources"]))),
    ("the config's resources are the webhooks' matchConditions", {"config": {"resources": [
        {"name": "example.com/gpu"}, {"pattern": "acme.io/gpu-*"}, {"pattern": "acme.io/*-mem"}]}}, None,
     all_(config_has("resources", [{"name": "example.com/gpu"}, {"pattern": "acme.io/gpu-*"},
                                   {"pattern": "acme.io/*-mem"}]),
          *[lambda r, i=i: (cel("r in ['example.com/gpu'] || r.startsWith('acme.io/gpu-') || "
                                "r.matches('^acme\\\\.io/.*-mem$')") in cel(expression(r, i))
                            and "nvidia.com/gpu" not in expression(r, i)) or expression(r, i)
            for i in (0, 1)])),
    ("scheduling", {"nodeSelector": {"pool": "system"}, "priorityClassName": "gpugate-critical",
                    "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
                    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "pool", "operator": "In", "values": ["system"]}]}]}}}}, None,
     lambda r: ({k: r.pod()["spec"].get(k) for k in ("nodeSelector", "priorityClassName")}
                == {"nodeSelector": {"pool": "system"}, "priorityClassName": "gpugate-critical"}
                and r.pod()["spec"]["tolerations"][0]["key"] == "dedicated"
                and list(r.pod()["spec"]["affinity"]) == ["nodeAffinity"]) or r.pod()["spec"]),
    ("affinity {} turns the spreading off", {"affinity": {}}, None,
     lambda r: "affinity" not in r.pod()["spec"] or r.pod()["spec"]["affinity"]),
    ("image and resources", {"image": {"repository": "registry.example.com/gpugate", "tag": "0.1.1",
                                       "pullPolicy": "Always"},
                             "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}, None,
     lambda r: (r.container()["image"], r.container()["imagePullPolicy"], r.container()["resources"])
     == ("registry.example.com/gpugate:0.1.1", "Always", {"requests": {"cpu": "1", "memory": "1Gi"}})
     or r.container()),
    ("ServiceMonitor and Grafana dashboard", {"serviceMonitor": {"enabled": True, "labels": {"release": "prom"}},
                                              "grafanaDashboard": {"enabled": True}}, None, all_(
        lambda r: r.get("ServiceMonitor")["metadata"]["labels"]["release"] == "prom",
        lambda r: r.get("ServiceMonitor")["spec"]["endpoints"][0]["tlsConfig"]["ca"]["secret"]
        == {"name": "gpugate-tls", "key": "ca.crt"},
        lambda r: r.get("ConfigMap", "gpugate-grafana-dashboard")["metadata"]["labels"]["grafana_dashboard"] == "1",
        lambda r: json.loads(r.get("ConfigMap", "gpugate-grafana-dashboard")["data"]["gpugate-gpu-quota.json"])
        ["uid"] == "gpugate-gpu-quota")),
    ("extra labels and annotations", {"commonLabels": {"team": "platform"},
                                      "commonAnnotations": {"owner": "gpu-team"},
                                      "podLabels": {"sidecar.istio.io/inject": "false"},
                                      "podAnnotations": {"example.com/scrape": "yes"},
                                      "serviceMonitor": {"enabled": True}}, None, all_(
        every_object(lambda d: d["metadata"]["labels"].get("team") == "platform", "commonLabels"),
        every_object(lambda d: (d["metadata"].get("annotations") or {}).get("owner") == "gpu-team",
                     "commonAnnotations"),
        lambda r: r.pod()["metadata"]["labels"]["sidecar.istio.io/inject"] == "false",
        lambda r: r.pod()["metadata"]["annotations"]["example.com/scrape"] == "yes",
        lambda r: r.pod()["metadata"]["annotations"]["prometheus.io/scrape"] == "true")),
]


def main():
    if SERVER:
        return server_dry_runs()
    lint = run(HELM, "lint", CHART, "--strict", "--namespace", NS)
    check("helm lint --strict", lambda: "0 chart(s) failed" in lint or lint)
    check("the default render equals manifests/base (less the Namespace, plus the certificate)",
          lambda: equal_to("manifests", render()))
    check("certificates.mode=cert-manager equals manifests/overlays/cert-manager",
          lambda: equal_to("manifests/overlays/cert-manager",
                           render({"certificates": {"mode": "cert-manager"}})))
    check("ledger.mode=local equals manifests/overlays/local-ledger (its config with the chart's "
          "shutdownDelaySeconds and audit)",
          lambda: equal_to("manifests/overlays/local-ledger", render({"ledger": {"mode": "local"}}),
                           config_adds=("shutdownDelaySeconds", "audit")))
    check("matchConditions never equals manifests/overlays/no-match-conditions",
          lambda: equal_to("manifests/overlays/no-match-conditions",
                           render({"webhooks": {"matchConditions": "never"}})))
    hooks = render().hooks
    check("the pre-delete hooks replace both webhook configurations with empty ones",
          lambda: sorted((h["kind"], h["metadata"]["name"], h["webhooks"],
                          h["metadata"]["annotations"]["helm.sh/hook"]) for h in hooks)
          == [("MutatingWebhookConfiguration", "gpugate", [], "pre-delete"),
              ("ValidatingWebhookConfiguration", "gpugate", [], "pre-delete")] or hooks)
    for name, values, kube_version, assertion in MATRIX:
        check(f"matrix: {name}", lambda: assertion(render(values, kube_version)))
    other = render(namespace="gpu-ops")
    check("another namespace: every namespaced object, the selector, the config and the certificate",
          lambda: all_(
              every_object(lambda d: d["metadata"].get("namespace", "gpu-ops") == "gpu-ops", "gpu-ops"),
              lambda r: all(w["namespaceSelector"]["matchExpressions"][0]["values"] == ["kube-system", "gpu-ops"]
                            for w in r.webhooks()) or "selector",
              config_has("exemptNamespaces", ["kube-system", "gpu-ops"]),
              lambda r: r.get("ClusterRoleBinding")["subjects"][0]["namespace"] == "gpu-ops",
              lambda r: certificate_is_served_right(r, "gpu-ops"))(other))
    # values.schema.json: a mistyped value is refused at install, naming it
    for name, values, words in [
        ("replicas: two", {"replicas": "two"}, ["/replicas", "integer"]),
        ("a misspelt top-level key", {"replica": 3}, ["additional properties 'replica' not allowed"]),
        ("webhooks.failurePolicy: Maybe", {"webhooks": {"failurePolicy": "Maybe"}}, ["/webhooks/failurePolicy", "must be one of"]),
        ("webhooks.timeoutSeconds: 60", {"webhooks": {"timeoutSeconds": 60}}, ["/webhooks/timeoutSeconds", "30"]),
        ("certificates.mode: manual", {"certificates": {"mode": "manual"}}, ["/certificates/mode", "must be one of"]),
        ("config.modes.default: block", {"config": {"modes": {"default": "block"}}}, ["/config/modes/default", "must be one of"]),
        ("a misspelt config key", {"config": {"exemptNamespace": ["a"]}}, ["/config", "additional properties 'exemptNamespace' not allowed"]),
        ("webhooks.url over plain HTTP", {"webhooks": {"url": "http://x"}}, ["/webhooks/url", "does not match pattern"]),
    ]:
        check(f"schema refuses {name}", lambda: refused(values, *words))
    # contradictions the schema cannot see, refused by the templates
    for name, values, words in [
        ("two replicas with the local ledger", {"ledger": {"mode": "local"}, "replicas": 2},
         ["local ledger runs exactly one replica"]),
        ("both minAvailable and maxUnavailable", {"podDisruptionBudget": {"minAvailable": 1, "maxUnavailable": 1}},
         ["not both"]),
        ("quota.stateFile in cluster mode", {"config": {"quota": {"stateFile": "/x"}}}, ["ledger.mode=local"]),
        ("an existing Secret without its CA", {"certificates": {"mode": "existingSecret"}},
         ["certificates.existingSecret.caBundle"]),
    ]:
        check(f"refuses {name}", lambda: refused(values, *words))
    print(f"chart: {passed} passed, {failed} failed")
    return 1 if failed else 0


def server_dry_runs():
    """Each matrix case rendered for the API server (helm template --kube-version of the server)
    and sent with kubectl apply --dry-run=server, after the CRDs and namespace it needs."""
    kubectl = [KUBECTL, "--kubeconfig", SERVER]
    version = json.loads(run(*kubectl, "version", "-o", "json"))["serverVersion"]["gitVersion"]
    for name, values, kube_version, assertion in MATRIX:
        def one():
            args = template_args(values, kube_version or version, extra=["--no-hooks"])
            manifest = run(*args)
            p = subprocess.run([*kubectl, "apply", "--dry-run=server", "-f", "-"], input=manifest,
                               capture_output=True, text=True)
            if p.returncode != 0:
                return p.stderr
            r = Render([d for d in yaml.safe_load_all(manifest) if d])
            created = p.stdout.count("(server dry run)")
            if created != len(r.docs):
                return f"{created} objects accepted of {len(r.docs)}:\n{p.stdout}"
            return assertion(r)
        check(f"API server {version} accepts (dry run) and the table holds: {name}", one)
    hooks = run(HELM, "template", "gpugate", CHART, "--namespace", NS, "--show-only",
                "templates/uninstall-webhooks-first.yaml")
    check(f"API server {version} accepts the pre-delete hooks (dry run)", lambda: subprocess.run(
        [*kubectl, "apply", "--dry-run=server", "-f", "-"], input=hooks, capture_output=True,
        text=True).returncode == 0)
    print(f"chart dry runs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
