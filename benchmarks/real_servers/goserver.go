// Go's net/http FileServer as a real server for bench_real_servers.py (family ``go``).
//
// The net/http documentation's own "simple static webserver",
// http.ListenAndServe(addr, http.FileServer(http.Dir(root))), on 127.0.0.1:-port, as
// Hugo's and most Go static servers serve a directory. Go's server takes an absolute-form
// request target (what a proxied crawl sends) as it comes: the path is the URL's.
//
// One addition, which changes no answer: with -log, one line per request (the request
// line as received, Host, status), as the other families' request logs.
//
//	go build -o goserver goserver.go && ./goserver -root DIR -port PORT [-log FILE]
//
// Serves until SIGTERM (servers.py's shell writes the pid file before it execs this).
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"
)

// status remembers the code a handler answered with, for the request log.
type status struct {
	http.ResponseWriter
	code int
}

func (s *status) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

func main() {
	root := flag.String("root", "", "the directory to serve")
	port := flag.Int("port", 0, "the port to listen on (127.0.0.1)")
	logFile := flag.String("log", "", "append a request log here")
	flag.Parse()
	if *root == "" || *port == 0 {
		log.Fatal("goserver: -root and -port are required")
	}
	handler := http.FileServer(http.Dir(*root))
	if *logFile != "" {
		out, err := os.OpenFile(*logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		files := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			recorder := &status{w, http.StatusOK}
			files.ServeHTTP(recorder, r)
			fmt.Fprintf(out, "%s [%s] \"%s %s %s\" %d \"%s\"\n", r.RemoteAddr,
				time.Now().Format(time.RFC3339), r.Method, r.RequestURI, r.Proto, recorder.code, r.Host)
		})
	}
	log.Fatal(http.ListenAndServe(fmt.Sprintf("127.0.0.1:%d", *port), handler))
}
