package apikey_test

import (
	"fmt"
	"time"

	"github.com/mnemon-dev/mnemon/internal/apikey"
	"github.com/mnemon-dev/mnemon/memory"
)

func Example() {
	raw, k, err := apikey.Generate("acme", memory.RoleWriter, "ci", time.Now())
	if err != nil {
		panic(err)
	}
	// Store k (it holds the hash only); give raw to its owner, once.
	fmt.Println(apikey.LooksValid(raw), k.Prefix == raw[:apikey.ShownLen], k.Hash == apikey.Hash(raw))
	fmt.Println(apikey.LooksValid("mnk_not-a-key"))
	// Output:
	// true true true
	// false
}
