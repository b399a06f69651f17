// A minimal proxy-injecting mutating webhook in Go, standard library only, for the admission
// benchmarks: what a webhook written the usual Go way costs (encoding/json into maps, the patch
// written from the changes made, one log line per request, net/http serving HTTP/2 and HTTP/1.1
// over TLS). It does what Kubeflow's PodDefault webhook does for proxy settings: the variables go
// into spec.containers (not initContainers), a variable a container already sets is left alone.
//
// Usage: peer -cert tls.crt -key tls.key [-addr 127.0.0.1:0]; prints {"port":N} once listening.
package main

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
)

var proxyVariables = []map[string]any{}

func init() {
	settings := [][2]string{
		{"HTTP_PROXY", "http://proxy.corp.example:3128"},
		{"HTTPS_PROXY", "http://proxy.corp.example:3128"},
		{"NO_PROXY", "localhost,127.0.0.1,.svc,.svc.cluster.local,.cluster.local,10.0.0.0/8"},
	}
	for _, s := range settings {
		proxyVariables = append(proxyVariables,
			map[string]any{"name": s[0], "value": s[1]},
			map[string]any{"name": strings.ToLower(s[0]), "value": s[1]})
	}
}

type review struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Request    *requestPart  `json:"request,omitempty"`
	Response   *responsePart `json:"response,omitempty"`
}

type requestPart struct {
	UID       string         `json:"uid"`
	Namespace string         `json:"namespace"`
	Name      string         `json:"name"`
	Operation string         `json:"operation"`
	Object    map[string]any `json:"object"`
}

type status struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type responsePart struct {
	UID       string  `json:"uid"`
	Allowed   bool    `json:"allowed"`
	Status    *status `json:"status,omitempty"`
	PatchType *string `json:"patchType,omitempty"`
	Patch     string  `json:"patch,omitempty"`
}

type operation struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// patchFor appends the proxy variables each container lacks.
func patchFor(pod map[string]any) []operation {
	spec, _ := pod["spec"].(map[string]any)
	containers, _ := spec["containers"].([]any)
	var ops []operation
	for i, item := range containers {
		container, _ := item.(map[string]any)
		env, hasEnv := container["env"].([]any)
		taken := map[string]bool{}
		for _, e := range env {
			if variable, ok := e.(map[string]any); ok {
				if name, ok := variable["name"].(string); ok {
					taken[name] = true
				}
			}
		}
		var missing []any
		for _, variable := range proxyVariables {
			if !taken[variable["name"].(string)] {
				missing = append(missing, variable)
			}
		}
		if len(missing) == 0 {
			continue
		}
		if !hasEnv {
			ops = append(ops, operation{"add", fmt.Sprintf("/spec/containers/%d/env", i), missing})
			continue
		}
		for _, variable := range missing {
			ops = append(ops, operation{"add", fmt.Sprintf("/spec/containers/%d/env/-", i), variable})
		}
	}
	return ops
}

func mutate(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 3<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in review
	if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	out := review{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview",
		Response: &responsePart{UID: in.Request.UID, Allowed: true}}
	if in.Request.Name == "peer-probe" {
		// Refused, so that the end-to-end benchmark can tell when the apiserver calls this webhook.
		out.Response.Allowed = false
		out.Response.Status = &status{Code: 403, Message: "probe"}
	} else if ops := patchFor(in.Request.Object); len(ops) > 0 {
		text, err := json.Marshal(ops)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		patchType := "JSONPatch"
		out.Response.PatchType = &patchType
		out.Response.Patch = base64.StdEncoding.EncodeToString(text)
	}
	answer, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	w.Write(answer)
	log.Printf("admission uid=%s namespace=%s operation=%s", in.Request.UID, in.Request.Namespace, in.Request.Operation)
}

func main() {
	cert := flag.String("cert", "", "serving certificate (PEM)")
	key := flag.String("key", "", "serving key (PEM)")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		log.Fatal(err)
	}
	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mutate", mutate)
	server := &http.Server{Handler: mux, TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"}}}
	log.SetOutput(os.Stderr)
	fmt.Printf("{\"port\":%d}\n", listener.Addr().(*net.TCPAddr).Port)
	log.Fatal(server.ServeTLS(listener, "", ""))
}
