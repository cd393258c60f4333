// Command mnemon is persistent memory for AI agents. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mnemon-dev/mnemon/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
