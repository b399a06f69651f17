//go:build tools

// Package tools pins versitygw, the S3 gateway on a plain folder that kfx's tests upload run
// artifacts to. Nothing here is compiled into kfx: @kfx/testenv runs `go build` on this import
// path (src/build.ts), with the versions of this module's go.mod and go.sum. It is a module of
// its own because versitygw's dependencies (AWS and Azure SDKs, gRPC) would move the versions
// the control plane is built with.
package tools

import (
	_ "github.com/versity/versitygw/cmd/versitygw"
)
