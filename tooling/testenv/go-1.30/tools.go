//go:build tools

// Package tools pins the control-plane binaries of the oldest Kubernetes minor kfx supports.
// Only what differs between minors is built from here (the apiserver and the controllers that
// run beside it); etcd, kwok, kubectl and helm come from the newest module (../go).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
