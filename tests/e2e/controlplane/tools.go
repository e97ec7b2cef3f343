//go:build tools

// Package tools pins the Kubernetes control-plane commands so that `go mod tidy`
// keeps every module they need; tools/build-controlplane.sh builds them with
// `go build k8s.io/kubernetes/cmd/<name>` from this module.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
