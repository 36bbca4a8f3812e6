// The emitted retryablehttp.go driven for real: N reads of BASE_URL/items/i shared by WORKERS
// goroutines that call at once through one client made by the emitted NewClient, each read sent
// with the emitted Do.
//
// usage: e2eclient BASE_URL N WORKERS — prints the final statuses on one line, then
// "attempts A answered B": attempts the client started (RequestLogHook) and attempts that got an
// HTTP answer (ResponseLogHook). An attempt without an answer failed on this side (a timeout, a
// queue, a refused connection). Exits 1, with the reasons on stderr, when a read got no final
// HTTP answer. Bounded: N reads, the policy's attempt cap and deadline.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	"toomanyclient"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: e2eclient BASE_URL N WORKERS")
		os.Exit(2)
	}
	base := os.Args[1]
	n, err1 := strconv.Atoi(os.Args[2])
	workers, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil || n < 1 || workers < 1 {
		fmt.Fprintln(os.Stderr, "N and WORKERS must be positive integers")
		os.Exit(2)
	}
	c := toomanyclient.NewClient()
	c.Logger = nil
	var attempts, answered int64
	c.RequestLogHook = func(_ retryablehttp.Logger, _ *http.Request, _ int) {
		atomic.AddInt64(&attempts, 1)
	}
	c.ResponseLogHook = func(_ retryablehttp.Logger, _ *http.Response) {
		atomic.AddInt64(&answered, 1)
	}
	statuses := make([]string, n)
	errs := make([]string, n)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				statuses[i], errs[i] = read(c, fmt.Sprintf("%s/items/%d", base, i))
			}
		}(w)
	}
	wg.Wait()
	fmt.Println(strings.Join(statuses, " "))
	fmt.Printf("attempts %d answered %d\n", attempts, answered)
	failed := false
	for i, e := range errs {
		if e != "" {
			fmt.Fprintf(os.Stderr, "read %d: %s\n", i, e)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// read: the final status, or why there was none.
func read(c *retryablehttp.Client, url string) (string, string) {
	req, err := retryablehttp.NewRequest("GET", url, nil)
	if err != nil {
		return "-", err.Error()
	}
	req.Header.Set("X-Client-Id", "go")
	resp, err := toomanyclient.Do(c, req)
	if err != nil {
		return "-", err.Error()
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return strconv.Itoa(resp.StatusCode), "reading the body: " + err.Error()
	}
	return strconv.Itoa(resp.StatusCode), ""
}
