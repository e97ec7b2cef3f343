// The Go peer: a measurement yardstick for bench/load/run.sh, never shipped. It is what a
// typical Go admission webhook with gpugate's built-in GPU rules costs: net/http over TLS with
// the same certificate, the AdmissionReview decoded with encoding/json into k8s.io/api's
// admission/v1 and core/v1 types (the whole Pod, as controller-runtime's decoder does), the
// answer encoded the same way. docs/decisions.md, "A Go peer for the load benchmarks".
//
//	gopeer --listen 127.0.0.1:8443 --tls-cert tls.crt --tls-key tls.key
//
// POST /validate: allowed, or denied with every rule's message (rules.go).
// POST /mutate:   allowed with a JSON Patch adding the tolerations and scheduler gpugate adds.
// GET /healthz:   200 "ok".
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxBody is gpugate's default body cap (transport::Tuning): 3 MiB.
const maxBody = 3 << 20

func main() {
	listen := flag.String("listen", "127.0.0.1:8443", "address to listen on")
	cert := flag.String("tls-cert", "", "PEM certificate")
	key := flag.String("tls-key", "", "PEM private key")
	flag.Parse()
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/validate", review(validate))
	mux.HandleFunc("/mutate", review(mutate))
	srv := &http.Server{
		Addr:              *listen,
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12},
	}
	log.Fatal(srv.ListenAndServeTLS(*cert, *key))
}

// review decodes the AdmissionReview and its Pod, runs decide and writes the answer with the
// request's uid, as a webhook framework's Complete does.
func review(decide func(*corev1.Pod) *admissionv1.AdmissionResponse) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		var in admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		var resp *admissionv1.AdmissionResponse
		var pod corev1.Pod
		if err := json.Unmarshal(in.Request.Object.Raw, &pod); err != nil {
			resp = denied("object-shape: " + err.Error())
		} else if in.Request.Namespace == "kube-system" {
			resp = &admissionv1.AdmissionResponse{Allowed: true}
		} else {
			resp = decide(&pod)
		}
		resp.UID = in.Request.UID
		out := admissionv1.AdmissionReview{TypeMeta: in.TypeMeta, Response: resp}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(&out)
	}
}

func denied(message string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: message}}
}

func validate(pod *corev1.Pod) *admissionv1.AdmissionResponse {
	if violations := Validate(pod); len(violations) > 0 {
		return denied(strings.Join(violations, "; "))
	}
	return &admissionv1.AdmissionResponse{Allowed: true}
}

// mutate refuses what validation refuses, as gpugate's /mutate does, else patches.
func mutate(pod *corev1.Pod) *admissionv1.AdmissionResponse {
	if violations := Validate(pod); len(violations) > 0 {
		return denied(strings.Join(violations, "; "))
	}
	ops := PlanPatch(pod)
	if len(ops) == 0 {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return denied(err.Error())
	}
	patchType := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &patchType}
}
