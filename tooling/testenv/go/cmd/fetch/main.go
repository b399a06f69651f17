// Command fetch is the HTTP client of kfx's tests on a real node: a static binary that GETs a
// URL the way Go, Python and curl clients in users' workloads do, honouring HTTP_PROXY,
// HTTPS_PROXY and NO_PROXY (either case, CIDRs included). It prints the body and exits 0, or
// prints the error and exits 1.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fetch URL")
		os.Exit(2)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fetch:", err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fetch:", err)
		os.Exit(1)
	}
	fmt.Print(string(body))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "fetch:", resp.Status)
		os.Exit(1)
	}
}
