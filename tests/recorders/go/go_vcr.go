// go-vcr: records (recorder.ModeRecording) or replays (recorder.ModeReplaying) the scenario,
// sent with net/http through the recorder, into one cassette,
// <CASSETTE_DIR>/<scenario name>.yaml. Every answer is checked against what the scenario
// expects (see tests/common/scenario.rs). Built in GOPATH mode against Debian's
// golang-github-dnaeon-go-vcr-dev (GO111MODULE=off GOPATH=/usr/share/gocode).
//
// Usage: go_vcr record|replay SCENARIO.json CASSETTE_DIR
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/dnaeon/go-vcr/cassette"
	"github.com/dnaeon/go-vcr/recorder"
)

type request struct {
	Name    string      `json:"name"`
	Method  string      `json:"method"`
	Target  string      `json:"target"`
	Headers [][2]string `json:"headers"`
	Body    *string     `json:"body"`
	Expect  struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"expect"`
}

type scenario struct {
	Name     string    `json:"name"`
	Base     string    `json:"base"`
	Requests []request `json:"requests"`
	// A scrubbed cassette matches when the test filters the same way (replay only):
	// query parameters (name, placeholder) compared as the placeholder.
	Filters struct {
		Query [][2]string `json:"query"`
	} `json:"filters"`
}

// withPlaceholders is the URL with each filtered query parameter set to its placeholder.
func withPlaceholders(raw string, query [][2]string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	values := u.Query()
	for _, pair := range query {
		if values.Get(pair[0]) != "" {
			values.Set(pair[0], pair[1])
		}
	}
	u.RawQuery = values.Encode()
	return u.String()
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go_vcr record|replay SCENARIO.json CASSETTE_DIR")
		os.Exit(2)
	}
	mode, ok := map[string]recorder.Mode{
		"record": recorder.ModeRecording,
		"replay": recorder.ModeReplaying,
	}[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
	text, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var s scenario
	if err := json.Unmarshal(text, &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	r, err := recorder.NewAsMode(filepath.Join(os.Args[3], s.Name), mode, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if len(s.Filters.Query) > 0 {
		r.SetMatcher(func(live *http.Request, recorded cassette.Request) bool {
			return live.Method == recorded.Method &&
				withPlaceholders(live.URL.String(), s.Filters.Query) == withPlaceholders(recorded.URL, s.Filters.Query)
		})
	}
	client := &http.Client{Transport: r}
	var problems []string
	for _, req := range s.Requests {
		problems = append(problems, send(client, s.Base, req)...)
	}
	if err := r.Stop(); err != nil {
		problems = append(problems, "saving the cassette: "+err.Error())
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}

// send performs one request and returns how its answer differs from the expected one.
func send(client *http.Client, base string, r request) []string {
	var body io.Reader
	if r.Body != nil {
		body = strings.NewReader(*r.Body)
	}
	req, err := http.NewRequest(r.Method, base+r.Target, body)
	if err != nil {
		return []string{r.Name + ": " + err.Error()}
	}
	for _, h := range r.Headers {
		req.Header.Set(h[0], h[1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return []string{r.Name + ": " + err.Error()}
	}
	defer resp.Body.Close()
	content, err := io.ReadAll(resp.Body)
	if err != nil {
		return []string{r.Name + ": " + err.Error()}
	}
	var problems []string
	if resp.StatusCode != r.Expect.Status {
		problems = append(problems, fmt.Sprintf("%s: status %d, expected %d", r.Name, resp.StatusCode, r.Expect.Status))
	}
	for name, value := range r.Expect.Headers {
		if got := resp.Header.Get(name); got != value {
			problems = append(problems, fmt.Sprintf("%s: header %s is %q, expected %q", r.Name, name, got, value))
		}
	}
	// Still gzip: net/http undoes it only when it asked for it itself.
	if bytes.HasPrefix(content, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(content))
		if err == nil {
			content, err = io.ReadAll(zr)
		}
		if err != nil {
			return append(problems, r.Name+": gzip: "+err.Error())
		}
	}
	if string(content) != r.Expect.Body {
		problems = append(problems, fmt.Sprintf("%s: body %q, expected %q", r.Name, content, r.Expect.Body))
	}
	return problems
}
