package tokens_test

import (
	"fmt"

	"github.com/mnemon-dev/mnemon/internal/tokens"
)

func ExampleCounter() {
	c, err := tokens.NewCounter()
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Count("hello world"), c.Count("tiktoken is great!"))
	// Output: 2 6
}
