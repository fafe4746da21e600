// Command oci-registry serves an in-memory OCI distribution registry for the
// Helm source tests: github.com/google/go-containerregistry/pkg/registry for
// the distribution API, behind a small front that adds the two ways a
// registry asks for credentials.
//
//	-auth none    anonymous pull and push
//	-auth basic   every /v2/ request needs HTTP basic credentials
//	-auth bearer  the distribution token flow: a 401 with
//	              WWW-Authenticate: Bearer realm=...,service=...,scope=...,
//	              a token endpoint at /token that takes basic credentials and
//	              returns {"token": ...}, and /v2/ requests carrying that token
//	              for the scope it was issued for
//
// It prints "listening <host:port>" once the socket is bound, then serves
// until killed. The password comes from the REGISTRY_PASSWORD environment
// variable so it is not visible in the process list.
package main

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/go-containerregistry/pkg/registry"
)

const service = "template-sync-test-registry"

// repository name and the part of the path after it, for /v2/<name>/{manifests,blobs,tags}/...
var repoPath = regexp.MustCompile(`^/v2/(.+?)/(manifests|blobs|tags|referrers)(/.*)?$`)

type grant struct {
	repo    string
	actions map[string]bool
}

type front struct {
	mode     string
	user     string
	password string
	next     http.Handler
	mu       sync.Mutex
	tokens   map[string][]grant
	// counts requests by kind so a test can tell whether a client fetched again
	manifestGets atomic.Int64
	blobGets     atomic.Int64
}

func (f *front) credentialsOK(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	if !ok {
		return false
	}
	userOK := subtle.ConstantTimeCompare([]byte(u), []byte(f.user)) == 1
	passOK := subtle.ConstantTimeCompare([]byte(p), []byte(f.password)) == 1
	return userOK && passOK
}

// action a request needs on its repository
func action(r *http.Request) string {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return "pull"
	}
	return "push"
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/token" && f.mode == "bearer":
		f.serveToken(w, r)
		return
	case r.URL.Path == "/stats":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]int64{"manifestGets": f.manifestGets.Load(), "blobGets": f.blobGets.Load()})
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/v2/") && r.URL.Path != "/v2" {
		http.NotFound(w, r)
		return
	}
	m := repoPath.FindStringSubmatch(r.URL.Path)
	switch f.mode {
	case "basic":
		if !f.credentialsOK(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="`+service+`"`)
			writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
			return
		}
	case "bearer":
		repo := ""
		if m != nil {
			repo = m[1]
		}
		if !f.tokenAllows(r, repo, action(r)) {
			challenge := fmt.Sprintf(`Bearer realm="http://%s/token",service="%s"`, r.Host, service)
			if repo != "" {
				challenge += fmt.Sprintf(`,scope="repository:%s:%s"`, repo, action(r))
			}
			w.Header().Set("WWW-Authenticate", challenge)
			writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
			return
		}
	}
	if m != nil && r.Method == http.MethodGet {
		switch m[2] {
		case "manifests":
			f.manifestGets.Add(1)
		case "blobs":
			f.blobGets.Add(1)
		}
	}
	f.next.ServeHTTP(w, r)
}

func (f *front) tokenAllows(r *http.Request, repo, act string) bool {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	grants, known := f.tokens[tok]
	if !known {
		return false
	}
	if repo == "" {
		return true
	}
	for _, g := range grants {
		if g.repo == repo && g.actions[act] {
			return true
		}
	}
	return false
}

// serveToken implements the token endpoint of the distribution token
// specification: scopes "repository:<name>:<actions>" are granted in full to a
// client with the right basic credentials.
func (f *front) serveToken(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("service") != service {
		writeError(w, http.StatusBadRequest, "UNSUPPORTED", "unknown service")
		return
	}
	if !f.credentialsOK(r) {
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "invalid credentials")
		return
	}
	var grants []grant
	for _, scope := range r.URL.Query()["scope"] {
		for _, one := range strings.Split(scope, " ") {
			parts := strings.Split(one, ":")
			if len(parts) < 3 || parts[0] != "repository" {
				continue
			}
			acts := map[string]bool{}
			for _, a := range strings.Split(parts[len(parts)-1], ",") {
				acts[a] = true
			}
			grants = append(grants, grant{repo: strings.Join(parts[1:len(parts)-1], ":"), actions: acts})
		}
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		writeError(w, http.StatusInternalServerError, "UNKNOWN", err.Error())
		return
	}
	tok := hex.EncodeToString(raw)
	f.mu.Lock()
	f.tokens[tok] = grants
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"token": tok, "access_token": tok, "expires_in": 300})
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": msg}}})
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	mode := flag.String("auth", "none", "none, basic or bearer")
	user := flag.String("user", "", "the one accepted user name")
	flag.Parse()
	password := os.Getenv("REGISTRY_PASSWORD")
	if *mode != "none" && *mode != "basic" && *mode != "bearer" {
		log.Fatalf("unknown -auth %q", *mode)
	}
	if *mode != "none" && (*user == "" || password == "") {
		log.Fatal("-auth basic and bearer need -user and REGISTRY_PASSWORD")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	f := &front{
		mode:     *mode,
		user:     *user,
		password: password,
		next:     registry.New(registry.Logger(log.New(io.Discard, "", 0))),
		tokens:   map[string][]grant{},
	}
	fmt.Printf("listening %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, f))
}
