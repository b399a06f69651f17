//go:build tools

// Package tools pins Argo Workflows' controller and executor, which only the test bed runs: an
// end-to-end test runs kfx's Argo WorkflowTemplate on the real node with them. Nothing here is
// compiled into kfx or shipped: @kfx/testenv runs `go build` on these import paths
// (src/build.ts), and the versions come from this module's go.mod and go.sum.
package tools

import (
	_ "github.com/argoproj/argo-workflows/v4/cmd/argoexec"
	_ "github.com/argoproj/argo-workflows/v4/cmd/workflow-controller"
)
