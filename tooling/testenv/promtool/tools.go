//go:build tools

// Package tools pins promtool, Prometheus' rule checker, which only the test bed runs: the
// charts' alerting rules are unit-tested with `promtool test rules`. Nothing here is compiled
// into kfx or shipped: @kfx/testenv runs `go build` on this import path (src/build.ts), with
// the versions of this module's go.mod and go.sum. It is a module of its own because
// Prometheus' dependencies (cloud service-discovery SDKs, newer client-go) would move the
// versions the control plane is built with.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
