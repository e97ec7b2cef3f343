#!/usr/bin/env python3
"""Writes the AdmissionReview request bodies the load benchmarks POST (docs/performance.md).

  make_bodies.py OUT_DIR FIXTURE_POD_JSON

  3k.json   a typical GPU training pod (two containers, env, mounts, a toleration): allowed,
            and /mutate patches it (the ExtendedResourceToleration for nvidia.com/gpu).
  15k.json  the same pod carrying bulky metadata: a kubectl last-applied-configuration
            annotation, many env vars, managedFields entries. Allowed, patched.
  60k.json  the every-field Pod fixture (kubernetes/api testdata) with nvidia.com/gpu "1" as
            limit and request of its first container, laid out as the fixture is (indented;
            compact it would be 32 KB, but the whitespace is parsed all the same). Denied: the fixture's container is
            privileged, which gpugate refuses for GPU pods; the whole object is decoded first.

Deterministic: the same files every run, so runs compare.
"""
import copy
import json
import os
import sys

COMPACT = (",", ":")


def review(pod):
    meta = pod["metadata"]
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
            "requestResource": {"group": "", "version": "v1", "resource": "pods"},
            "name": meta["name"],
            "namespace": meta["namespace"],
            "operation": "CREATE",
            "userInfo": {
                "username": "system:serviceaccount:kube-system:job-controller",
                "uid": "b0e2a4c1-3f5d-4e8a-9c71-2d6f0a1b9e33",
                "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system",
                           "system:authenticated"],
            },
            "object": pod,
            "oldObject": None,
            "dryRun": False,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"},
        },
    }


def training_pod():
    gpu = {"nvidia.com/gpu": "1", "cpu": "8", "memory": "32Gi"}
    trainer = {
        "name": "trainer",
        "image": "nvcr.io/nvidia/pytorch:24.01-py3",
        "command": ["torchrun", "--nproc_per_node=1", "train.py"],
        "args": ["--epochs=90", "--batch-size=256", "--data=/data/imagenet"],
        "env": [{"name": "NCCL_DEBUG", "value": "INFO"},
                {"name": "MASTER_ADDR", "value": "resnet-train-0.resnet-train"},
                {"name": "MASTER_PORT", "value": "29500"},
                {"name": "POD_NAME",
                 "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
        "ports": [{"name": "dist", "containerPort": 29500, "protocol": "TCP"}],
        "resources": {"limits": gpu, "requests": dict(gpu)},
        "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True},
                         {"name": "dshm", "mountPath": "/dev/shm"},
                         {"name": "kube-api-access-7x2kq", "readOnly": True,
                          "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }
    shipper = {
        "name": "log-shipper",
        "image": "cr.fluentbit.io/fluent/fluent-bit:2.2",
        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                      "limits": {"memory": "128Mi"}},
        "volumeMounts": [{"name": "logs", "mountPath": "/var/log/train"}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "resnet-train-0",
            "generateName": "resnet-train-",
            "namespace": "team-vision",
            "uid": "3c0d9b7e-8f1a-4d2b-a6c5-91e0f7d4b218",
            "creationTimestamp": None,
            "labels": {"app": "resnet-train", "team": "vision",
                       "batch.kubernetes.io/job-name": "resnet-train",
                       "batch.kubernetes.io/controller-uid": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"},
            "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9400"},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "resnet-train",
                                 "uid": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
                                 "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": {
            "containers": [trainer, shipper],
            "restartPolicy": "Never",
            "schedulerName": "default-scheduler",
            "serviceAccountName": "trainer",
            "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"},
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                             "effect": "NoExecute", "tolerationSeconds": 300}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}},
                        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
                        {"name": "logs", "emptyDir": {}},
                        {"name": "kube-api-access-7x2kq", "projected": {"defaultMode": 420,
                         "sources": [{"serviceAccountToken": {"expirationSeconds": 3607,
                                                              "path": "token"}}]}}],
        },
    }


def bulky_pod(target_bytes):
    """The training pod with metadata grown until its review is about target_bytes."""
    pod = training_pod()
    applied = copy.deepcopy(pod)
    del applied["metadata"]["uid"]
    pod["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = (
        json.dumps(applied, separators=COMPACT) + "\n")
    env = pod["spec"]["containers"][0]["env"]
    managed = pod["metadata"].setdefault("managedFields", [])
    i = 0
    while len(json.dumps(review(pod), separators=COMPACT)) < target_bytes:
        env.append({"name": f"TRAIN_OPTION_{i:03d}", "value": f"value-{i:03d}-" + "x" * 24})
        if i % 8 == 0:
            managed.append({
                "manager": f"controller-{i // 8}", "operation": "Update", "apiVersion": "v1",
                "time": "2024-05-01T12:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {f"f:label-{i}": {}}},
                             "f:spec": {"f:containers": {'k:{"name":"trainer"}': {
                                 f"f:env": {f'k:{{"name":"TRAIN_OPTION_{i:03d}"}}': {
                                     ".": {}, "f:name": {}, "f:value": {}}}}}}}})
        i += 1
    return pod


def fixture_pod(path):
    with open(path) as f:
        pod = json.load(f)
    resources = pod["spec"]["containers"][0].setdefault("resources", {})
    resources.setdefault("limits", {})["nvidia.com/gpu"] = "1"
    resources.setdefault("requests", {})["nvidia.com/gpu"] = "1"
    return pod


def fixture_layout(pod):
    """The review as compact JSON around the pod laid out as the fixture is (indented by 2)."""
    envelope = review(pod)
    envelope["request"]["object"] = "@OBJECT@"
    return json.dumps(envelope, separators=COMPACT).replace('"@OBJECT@"', json.dumps(pod, indent=2))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_bodies.py OUT_DIR FIXTURE_POD_JSON")
    out, fixture = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    bodies = {"3k": training_pod(), "15k": bulky_pod(15 * 1024), "60k": fixture_pod(fixture)}
    for name, pod in bodies.items():
        text = fixture_layout(pod) if name == "60k" else json.dumps(review(pod), separators=COMPACT)
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(text)
        print(f"{name}: {len(text)} bytes")


if __name__ == "__main__":
    main()
