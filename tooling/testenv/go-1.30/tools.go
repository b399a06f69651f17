//go:build tools

// Package tools pins the control-plane and node binaries of the oldest Kubernetes minor kfx
// supports. Only what must match the API server's minor is built from here (the apiserver, the
// controllers that run beside it, and the real node's kubelet and kube-proxy, which may not be
// newer than their API server); etcd, kwok, kubectl, helm, crictl and CoreDNS come from the
// newest module (../go).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
