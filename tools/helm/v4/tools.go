//go:build tools

// Package tools pins the Helm CLI that tools/build-helm.sh builds (helm.sh/helm/v4/cmd/helm).
package tools

import _ "helm.sh/helm/v4/cmd/helm"
