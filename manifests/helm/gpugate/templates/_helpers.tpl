{{/*
Labels. The objects carry the labels of manifests/base (the test that compares the two renders
holds them equal): app.kubernetes.io/name on the objects that have it there, part-of on all,
and commonLabels. Names are fixed ("gpugate"): the webhook configurations, the ClusterRole and the
CustomResourceDefinition are cluster-wide, so one gpugate per cluster.
*/}}
{{- define "gpugate.partOfLabels" -}}
app.kubernetes.io/part-of: gpugate
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "gpugate.labels" -}}
app.kubernetes.io/name: gpugate
{{ include "gpugate.partOfLabels" . }}
{{- end }}

{{/* metadata.labels and, when commonAnnotations has any, metadata.annotations. */}}
{{- define "gpugate.metadata" -}}
labels:
  {{- include "gpugate.labels" . | nindent 2 }}
{{- with .Values.commonAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "gpugate.isLocal" -}}
{{- if eq .Values.ledger.mode "local" }}true{{ end }}
{{- end }}

{{- define "gpugate.replicas" -}}
{{- if include "gpugate.isLocal" . }}
{{- if and (not (kindIs "invalid" .Values.replicas)) (ne (int .Values.replicas) 1) }}
{{- fail (printf "replicas: the local ledger runs exactly one replica (its journal has one writer), got %v; use ledger.mode=cluster for more" .Values.replicas) }}
{{- end }}1
{{- else if kindIs "invalid" .Values.replicas }}2
{{- else }}{{ .Values.replicas }}
{{- end }}
{{- end }}

{{/*
gpugate's config.yaml: .Values.config with what the ledger mode needs (cluster.enabled, or
quota.stateFile) and exemptNamespaces defaulting to kube-system and the release's namespace.
*/}}
{{- define "gpugate.config" -}}
{{- $config := deepCopy (.Values.config | default dict) }}
{{- if not (hasKey $config "exemptNamespaces") }}
{{- $_ := set $config "exemptNamespaces" (list "kube-system" .Release.Namespace) }}
{{- end }}
{{- $quota := get $config "quota" | default dict }}
{{- if include "gpugate.isLocal" . }}
{{- if hasKey $config "cluster" }}
{{- fail "config.cluster: not with ledger.mode=local (the local ledger calls no Kubernetes API)" }}
{{- end }}
{{- $_ := set $quota "stateFile" "/var/lib/gpugate/ledger.journal" }}
{{- $_ := set $config "quota" $quota }}
{{- else }}
{{- if hasKey $quota "stateFile" }}
{{- fail "config.quota.stateFile: the local ledger's journal; set ledger.mode=local instead" }}
{{- end }}
{{- $cluster := get $config "cluster" | default dict }}
{{- $_ := set $cluster "enabled" true }}
{{- $_ := set $config "cluster" $cluster }}
{{- end }}
{{- toYaml $config }}
{{- end }}

{{/* The Service's DNS names and the extra ones: what the serving certificate covers. */}}
{{- define "gpugate.dnsNames" -}}
{{- $ns := .Release.Namespace }}
{{- $names := list "gpugate" (printf "gpugate.%s" $ns) (printf "gpugate.%s.svc" $ns) (printf "gpugate.%s.svc.cluster.local" $ns) }}
{{- toJson (concat $names .Values.certificates.extraDNSNames) }}
{{- end }}

{{/*
The generated certificate, made once per render (cached in .Values) and kept across upgrades:
the CA comes from the Secret <secretName>-ca when it exists, so the caBundle never changes; the
serving certificate is kept too unless the names it must cover changed, in which case the same CA
signs a new one (gpugate re-reads its certificate files while serving: tls.reloadInterval).
Returns JSON {crt, key, ca, caKey, names}, each PEM base64-encoded.
*/}}
{{- define "gpugate.generatedTLS" -}}
{{- if not (hasKey .Values.certificates "_generated") }}
{{- $c := .Values.certificates }}
{{- $days := int $c.generate.days }}
{{- $dns := include "gpugate.dnsNames" . | fromJsonArray }}
{{- $names := join "," (concat $dns $c.extraIPAddresses) }}
{{- $caSecret := lookup "v1" "Secret" .Release.Namespace (printf "%s-ca" $c.secretName) }}
{{- $ca := dict }}
{{- $out := dict "names" $names }}
{{- if and $caSecret (index ($caSecret.data | default dict) "tls.crt") (index ($caSecret.data | default dict) "tls.key") }}
{{- $ca = buildCustomCert (index $caSecret.data "tls.crt") (index $caSecret.data "tls.key") }}
{{- $_ := set $out "ca" (index $caSecret.data "tls.crt") }}
{{- $_ := set $out "caKey" (index $caSecret.data "tls.key") }}
{{- else }}
{{- $ca = genCAWithKey "gpugate-ca" $days (genPrivateKey "ecdsa") }}
{{- $_ := set $out "ca" ($ca.Cert | b64enc) }}
{{- $_ := set $out "caKey" ($ca.Key | b64enc) }}
{{- end }}
{{- $serving := lookup "v1" "Secret" .Release.Namespace $c.secretName }}
{{- $kept := false }}
{{- if and $serving $caSecret }}
{{- $annotations := $serving.metadata.annotations | default dict }}
{{- $data := $serving.data | default dict }}
{{- if and (eq (index $annotations "gpugate.io/certificate-names" | default "") $names) (eq (index $data "ca.crt" | default "") $out.ca) (index $data "tls.crt") (index $data "tls.key") }}
{{- $kept = true }}
{{- $_ := set $out "crt" (index $data "tls.crt") }}
{{- $_ := set $out "key" (index $data "tls.key") }}
{{- end }}
{{- end }}
{{- if not $kept }}
{{- $leaf := genSignedCertWithKey (printf "gpugate.%s.svc" .Release.Namespace) $c.extraIPAddresses $dns $days $ca (genPrivateKey "ecdsa") }}
{{- $_ := set $out "crt" ($leaf.Cert | b64enc) }}
{{- $_ := set $out "key" ($leaf.Key | b64enc) }}
{{- end }}
{{- $_ := set .Values.certificates "_generated" $out }}
{{- end }}
{{- toJson .Values.certificates._generated }}
{{- end }}

{{/* The caBundle the webhooks carry (base64 PEM), or "" when cert-manager injects it. */}}
{{- define "gpugate.caBundle" -}}
{{- $c := .Values.certificates }}
{{- if eq $c.mode "generate" }}
{{- (include "gpugate.generatedTLS" . | fromJson).ca }}
{{- else if eq $c.mode "existingSecret" }}
{{- if $c.existingSecret.caBundle }}
{{- $c.existingSecret.caBundle | trim | b64enc }}
{{- else }}
{{- $secret := lookup "v1" "Secret" .Release.Namespace $c.secretName }}
{{- $ca := index (($secret | default dict).data | default dict) "ca.crt" }}
{{- if not $ca }}
{{- fail (printf "certificates.existingSecret.caBundle: required (the PEM CA that signed the certificate in Secret %s/%s), unless that Secret exists at install and holds ca.crt" .Release.Namespace $c.secretName) }}
{{- end }}
{{- $ca }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The CEL test for a managed resource name `r`: exact names with `in`, patterns ending in their only
`*` with startsWith, any other pattern as an anchored regular expression. From config.resources,
or gpugate's built-in list when that is not set, so the webhooks always send what gpugate manages.
*/}}
{{- define "gpugate.resourceTest" -}}
{{- $resources := .Values.config.resources }}
{{- if not $resources }}
{{- $resources = list
  (dict "name" "nvidia.com/gpu") (dict "name" "amd.com/gpu") (dict "pattern" "nvidia.com/mig-*")
  (dict "name" "tencent.com/vcuda-core") (dict "name" "tencent.com/vcuda-memory")
  (dict "name" "aliyun.com/gpu-mem") (dict "name" "volcano.sh/gpu-memory")
  (dict "name" "volcano.sh/gpu-number") (dict "pattern" "volcano.sh/vgpu-*")
  (dict "name" "nvidia.com/gpumem") (dict "name" "nvidia.com/gpucores")
  (dict "name" "nvidia.com/gpumem-percentage") }}
{{- end }}
{{- $names := list }}
{{- $terms := list }}
{{- range $resources }}
{{- if .name }}
{{- $names = append $names (printf "'%s'" .name) }}
{{- end }}
{{- end }}
{{- $terms = append $terms (printf "r in [%s]" (join ", " $names)) }}
{{- range $resources }}
{{- if .pattern }}
{{- $p := toString .pattern }}
{{- if and (hasSuffix "*" $p) (eq (len (splitList "*" $p)) 2) }}
{{- $terms = append $terms (printf "r.startsWith('%s')" (trimSuffix "*" $p)) }}
{{- else }}
{{- $parts := list }}
{{- range splitList "*" $p }}
{{- $parts = append $parts (regexQuoteMeta . | replace "\\" "\\\\") }}
{{- end }}
{{- $terms = append $terms (printf "r.matches('^%s$')" (join ".*" $parts)) }}
{{- end }}
{{- end }}
{{- end }}
{{- join " ||\n" $terms }}
{{- end }}

{{/* The webhook configurations' metadata: cert-manager's CA injection when it issues. */}}
{{- define "gpugate.webhookMetadata" -}}
labels:
  {{- include "gpugate.labels" . | nindent 2 }}
{{- $annotations := deepCopy (.Values.commonAnnotations | default dict) }}
{{- if eq .Values.certificates.mode "cert-manager" }}
{{- $_ := set $annotations "cert-manager.io/inject-ca-from" (printf "%s/gpugate-serving" .Release.Namespace) }}
{{- end }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* (list $ PATH): the Service, or webhooks.url; with the caBundle unless cert-manager injects it. */}}
{{- define "gpugate.clientConfig" -}}
{{- $ := index . 0 }}
{{- $path := index . 1 }}
{{- if $.Values.webhooks.url }}
url: {{ printf "%s%s" (trimSuffix "/" $.Values.webhooks.url) $path | quote }}
{{- else }}
service:
  namespace: {{ $.Release.Namespace }}
  name: gpugate
  port: 443
  path: {{ $path }}
{{- end }}
{{- with include "gpugate.caBundle" $ }}
caBundle: {{ . }}
{{- end }}
{{- end }}

{{- define "gpugate.namespaceSelector" -}}
{{- if not (kindIs "invalid" .Values.webhooks.namespaceSelector) }}
{{- toYaml .Values.webhooks.namespaceSelector }}
{{- else }}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ list "kube-system" .Release.Namespace | uniq | toJson }}
{{- end }}
{{- end }}

{{/* "true" when the webhooks carry matchConditions: Kubernetes 1.28 or later under auto. */}}
{{- define "gpugate.matchConditions" -}}
{{- $m := toString .Values.webhooks.matchConditions }}
{{- if eq $m "always" }}true
{{- else if eq $m "auto" }}
{{- if semverCompare ">=1.28-0" .Capabilities.KubeVersion.Version }}true{{ end }}
{{- end }}
{{- end }}
