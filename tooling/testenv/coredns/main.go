// CoreDNS for the test cluster's DNS: CoreDNS's own main with only the plugins the cluster's
// Corefile uses (src/node/cluster-dns.ts), the way CoreDNS documents building a server with a
// chosen set of plugins. The full set would also compile every cloud provider's SDK.
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	coremain.Run()
}
