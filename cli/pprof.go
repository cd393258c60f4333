package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"
)

// servePprof serves Go's runtime profiles (/debug/pprof/) on addr, a
// loopback address the caller has checked, on a server of its own: the
// API's mux, keys and limits never see it. It returns a function that
// stops it. With it on, the mutex and block profiles sample too (a
// contended lock one time in pprofMutexFraction, a wait of pprofBlockRate
// on average): with the default of zero both would be empty, and
// "where do eight clients wait" is a question for them.
func servePprof(addr string, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &failure{msg: fmt.Sprintf("--pprof: listen on %s: %v", addr, err), code: 1, err: err}
	}
	runtime.SetMutexProfileFraction(pprofMutexFraction)
	runtime.SetBlockProfileRate(int(pprofBlockRate.Nanoseconds()))
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Info("profiles", "addr", "http://"+ln.Addr().String()+"/debug/pprof/")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		runtime.SetMutexProfileFraction(0)
		runtime.SetBlockProfileRate(0)
	}, nil
}

// The sampling of the mutex and block profiles while --pprof serves: a
// few percent of contention events, and blocking events of about 10 µs
// and up, cheap enough to leave on for a profiling session.
const (
	pprofMutexFraction = 20
	pprofBlockRate     = 10 * time.Microsecond
)
