package embed_test

import (
	"context"
	"fmt"

	"github.com/mnemon-dev/mnemon/embed"
)

func ExampleBuiltin() {
	e := embed.NewBuiltin()
	vs, err := e.Embed(context.Background(), []string{
		"which city does she live in",
		"I live in Lisbon",
		"the tests fail on Windows",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Name(), e.Dim())
	fmt.Printf("related:   %.2f\n", vs[0].Dot(vs[1]))
	fmt.Printf("unrelated: %.2f\n", vs[0].Dot(vs[2]))
	// Output:
	// builtin-hash-v1 262144
	// related:   0.62
	// unrelated: 0.00
}
