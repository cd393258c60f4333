package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
)

// "what's my dog's groomer called?" asks for the groomer's name, never
// given: the dog's own name (its fact, and the turn that gave it) answers
// another question and must not come first. "what's my dog called?" still
// gets it.
func TestNameOfAPossessionsThing(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	for i, n := range []string{
		"we adopted a scruffy lurcher last month, named him Biscuit",
		"the boiler is making that noise again",
		"need to book the car in for its MOT before march",
	} {
		remember(t, e, "ns", n, t0.Add(time.Duration(i-3)*time.Hour))
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what's my dog's groomer called?", Limit: 5})
	if len(res.Items) > 0 && strings.Contains(res.Items[0].Content, "Biscuit") {
		t.Errorf("first item %q names the dog, not its groomer: %s", res.Items[0].Content, res.Items[0].Explanation)
	}
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what's my dog called?", Limit: 5})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Biscuit") {
		t.Errorf("the dog's name is not first for its own question: %+v", res.Items)
	}
}
