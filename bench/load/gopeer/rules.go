package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The managed resources of gpugate's built-in defaults (policy::Settings::DefaultResources),
// with the scheduler each requires ("" for any): exact names in a map, the two patterns
// ("nvidia.com/mig-*", "volcano.sh/vgpu-*") as prefixes. A name is looked up once per
// resource entry, so this is a map access, not a glob match against every entry.
var managedExact = map[corev1.ResourceName]string{
	"nvidia.com/gpu": "", "amd.com/gpu": "", "tencent.com/vcuda-core": "",
	"tencent.com/vcuda-memory": "", "aliyun.com/gpu-mem": "",
	"volcano.sh/gpu-memory": "volcano", "volcano.sh/gpu-number": "volcano",
	"nvidia.com/gpumem": "", "nvidia.com/gpucores": "", "nvidia.com/gpumem-percentage": "",
}

var managedPrefixes = []struct{ prefix, scheduler string }{
	{"nvidia.com/mig-", ""}, {"volcano.sh/vgpu-", "volcano"},
}

const (
	vcudaCore      = "tencent.com/vcuda-core"
	coreLimitKey   = "tencent.com/vcuda-core-limit"
	visibleDevices = "NVIDIA_VISIBLE_DEVICES"
)

// schedulerFor reports whether name is a managed resource and the scheduler it requires.
func schedulerFor(name corev1.ResourceName) (string, bool) {
	if s, ok := managedExact[name]; ok {
		return s, true
	}
	for _, m := range managedPrefixes {
		if strings.HasPrefix(string(name), m.prefix) {
			return m.scheduler, true
		}
	}
	return "", false
}

type container struct {
	list  string // "initContainers", "containers" or "ephemeralContainers"
	index int
	c     *corev1.Container
}

// label names the container in a message; built only when there is one.
func (c container) label() string {
	return fmt.Sprintf("spec.%s[%d] %q", c.list, c.index, c.c.Name)
}

func containers(pod *corev1.Pod) []container {
	n := len(pod.Spec.InitContainers) + len(pod.Spec.Containers) + len(pod.Spec.EphemeralContainers)
	out := make([]container, 0, n)
	for i := range pod.Spec.InitContainers {
		out = append(out, container{"initContainers", i, &pod.Spec.InitContainers[i]})
	}
	for i := range pod.Spec.Containers {
		out = append(out, container{"containers", i, &pod.Spec.Containers[i]})
	}
	for i := range pod.Spec.EphemeralContainers {
		c := corev1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		out = append(out, container{"ephemeralContainers", i, &c})
	}
	return out
}

// requested: the managed resources with a positive quantity anywhere in the pod, sorted.
func requested(pod *corev1.Pod) []string {
	seen := map[string]bool{}
	for _, c := range containers(pod) {
		for _, list := range []corev1.ResourceList{c.c.Resources.Limits, c.c.Resources.Requests} {
			for name, q := range list {
				if _, ok := schedulerFor(name); ok && q.Sign() > 0 {
					seen[string(name)] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func whole(q resource.Quantity) bool { return q.MilliValue()%1000 == 0 }

// Validate applies gpugate's rules with the built-in defaults, in gpugate's reporting order:
// whole-units, requests-equal-limits, vcuda-core-shares, core-limit-annotation,
// visible-devices-env, privileged-gpu, scheduler (max-per-container has no default maximum).
func Validate(pod *corev1.Pod) []string {
	var out []string
	cs := containers(pod)
	for _, c := range cs {
		out = append(out, quantityRules(c)...)
	}
	if v, ok := pod.Annotations[coreLimitKey]; ok {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 100 || v[0] == '+' {
			out = append(out, fmt.Sprintf("metadata.annotations[%s] %q must be an integer from 1 to 100", coreLimitKey, v))
		}
	}
	for _, c := range cs {
		for _, e := range c.c.Env {
			if e.Name != visibleDevices {
				continue
			}
			if e.ValueFrom != nil {
				out = append(out, c.label()+": env "+visibleDevices+" set from valueFrom cannot be checked and bypasses the GPU device plugin")
			} else if e.Value != "" && e.Value != "none" && e.Value != "void" {
				out = append(out, fmt.Sprintf("%s: env %s %q bypasses the GPU device plugin; request a managed GPU resource instead", c.label(), visibleDevices, e.Value))
			}
		}
	}
	gpus := requested(pod)
	if len(gpus) > 0 {
		for _, c := range cs {
			if sc := c.c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
				out = append(out, c.label()+": privileged container in a pod that requests GPUs sees every GPU on the node")
			}
		}
	}
	return append(out, schedulerRule(pod, gpus)...)
}

func quantityRules(c container) []string {
	var out []string
	describe := func(field string, name corev1.ResourceName, q resource.Quantity) string {
		return fmt.Sprintf("%s: %s %s %q", c.label(), name, field, q.String())
	}
	for _, f := range []struct {
		field string
		list  corev1.ResourceList
	}{{"limit", c.c.Resources.Limits}, {"request", c.c.Resources.Requests}} {
		for name, q := range f.list {
			if _, ok := schedulerFor(name); !ok {
				continue
			}
			switch {
			case q.Sign() < 0:
				out = append(out, describe(f.field, name, q)+" must not be negative")
			case !whole(q):
				out = append(out, describe(f.field, name, q)+" must be a whole number")
			case f.field == "request":
				if limit, ok := c.c.Resources.Limits[name]; !ok {
					out = append(out, describe(f.field, name, q)+" has no limit; set the limit to the same value")
				} else if whole(limit) && limit.Cmp(q) != 0 {
					out = append(out, describe(f.field, name, q)+" must equal its limit "+limit.String())
				}
			}
			if name == vcudaCore && whole(q) && q.Value() >= 100 && q.Value()%100 != 0 {
				out = append(out, describe(f.field, name, q)+" must be below 100 (a share of one card) or a multiple of 100 (whole cards)")
			}
		}
	}
	return out
}

func requiredScheduler(gpus []string) (string, error) {
	want := ""
	for _, g := range gpus {
		s, _ := schedulerFor(corev1.ResourceName(g))
		if s == "" {
			continue
		}
		if want != "" && want != s {
			return "", fmt.Errorf("spec: resources require different schedulers %s and %s", want, s)
		}
		want = s
	}
	return want, nil
}

func schedulerRule(pod *corev1.Pod, gpus []string) []string {
	want, err := requiredScheduler(gpus)
	if err != nil {
		return []string{err.Error()}
	}
	name := pod.Spec.SchedulerName
	if want == "" || pod.Spec.NodeName == "" || (name != "" && name != "default-scheduler" && name != want) {
		return nil
	}
	return []string{fmt.Sprintf("spec.nodeName %q bypasses the %s scheduler; remove nodeName", pod.Spec.NodeName, want)}
}

// patchOp is one JSON Patch operation.
type patchOp struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	Value interface{} `json:"value,omitempty"`
}

// PlanPatch: what gpugate's /mutate adds with the defaults: a refusal when validation refuses
// (handled by the caller through Validate), else the NoSchedule toleration for each requested
// managed resource that no existing toleration covers, and the resource's scheduler when the
// pod names none.
func PlanPatch(pod *corev1.Pod) []patchOp {
	var ops []patchOp
	var add []corev1.Toleration
	have := pod.Spec.Tolerations
	gpus := requested(pod)
	for _, g := range gpus {
		want := corev1.Toleration{Key: g, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
		if !covered(have, want) {
			have = append(have, want)
			add = append(add, want)
		}
	}
	if len(add) > 0 && len(pod.Spec.Tolerations) == 0 {
		ops = append(ops, patchOp{"add", "/spec/tolerations", add})
	} else {
		for _, t := range add {
			ops = append(ops, patchOp{"add", "/spec/tolerations/-", t})
		}
	}
	if want, err := requiredScheduler(gpus); err == nil && want != "" &&
		(pod.Spec.SchedulerName == "" || pod.Spec.SchedulerName == "default-scheduler") {
		ops = append(ops, patchOp{"add", "/spec/schedulerName", want})
	}
	return ops
}

func covered(have []corev1.Toleration, want corev1.Toleration) bool {
	for _, t := range have {
		if t.Effect != "" && t.Effect != want.Effect {
			continue
		}
		if t.Key == "" && t.Operator == corev1.TolerationOpExists {
			return true
		}
		if t.Key == want.Key && t.Operator == corev1.TolerationOpExists {
			return true
		}
	}
	return false
}
