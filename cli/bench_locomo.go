package cli

import (
	"context"
	"errors"
)

func locomoSuite() benchSuite {
	return benchSuite{
		name:    "locomo",
		summary: "LoCoMo conversations: does recall find the turns each question needs?",
		run:     runLocomo,
	}
}

func runLocomo(ctx context.Context, env Env, args []string) error {
	fs := benchFlags("locomo")
	data := fs.String("data", "", "the LoCoMo JSON `FILE`")
	if _, err := parseBenchFlags(env, fs, "locomo", "Not built yet.", args); err != nil {
		return err
	}
	_ = stderrIsTerminal(env.Stderr)
	return errors.New("bench locomo: not built yet (" + *data + ")")
}
