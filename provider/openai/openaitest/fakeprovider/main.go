// Command fakeprovider serves the test fake of an OpenAI-compatible
// provider (package openaitest) on 127.0.0.1 until interrupted, so the
// model path of mnemon's commands (serve, bench) can be exercised without
// a model: deterministic hashed-word embeddings, a word-overlap /rerank,
// and chat replies of "ok". Its figures prove the plumbing, never a
// model's quality.
//
//	go run ./provider/openai/openaitest/fakeprovider -dims 64
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"testing"

	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// tb satisfies testing.TB for openaitest.New outside a test; cleanups run
// at exit.
type tb struct {
	testing.TB
	cleanups []func()
}

func (*tb) Helper()               {}
func (t *tb) Cleanup(f func())    { t.cleanups = append(t.cleanups, f) }
func (*tb) Fatal(args ...any)     { fmt.Fprintln(os.Stderr, args...); os.Exit(1) }
func (*tb) Errorf(string, ...any) {}

func main() {
	model := flag.String("model", "fake-embed", "the embeddings model name the server answers for")
	dims := flag.Int("dims", 64, "the length of its vectors")
	flag.Parse()
	t := &tb{}
	s := openaitest.New(t, *model, *dims)
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
