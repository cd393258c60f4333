package embed

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/search"
)

func cos(b *Builtin, x, y string) float64 {
	return float64(b.Vector(x).Dot(b.Vector(y)))
}

var similarPairs = []struct {
	a, b string
	min  float64
}{
	{"coding language", "programming language", 0.5},
	{"which city does she live in", "I live in Lisbon", 0.35},
	{"What is my favourite editor?", "I prefer Neovim as my IDE", 0.3},
	{"Where does Bertil work?", "Bertil's employer is a fintech startup", 0.3},
	{"what car does Ingrid drive", "Ingrid bought a new vehicle, a Tesla", 0.3},
	{"user is allergic to peanuts", "Allergy: peanut allergy, avoid nuts", 0.45},
	{"running shoes", "she runs in new shoes", 0.5},
	{"When did Imogen sketch a lighthouse?", "Imogen sketched a lovely lighthouse from the harbour last year", 0.45},
	{"Rosalind went to the beekeeping club", "Rosalind attended a beekeeping club meeting yesterday", 0.5},
	{"prefers dark mode in the editor", "Use the dark theme in VS Code", 0.25},
	{"deploy the billing service on Friday", "billing service deployment happens on Fridays", 0.55},
	{"the tests fail on Windows", "test failures on Windows machines", 0.45},
	{"what pets does Saoirse have", "Saoirse adopted a puppy and a kitten", 0.25},
	{"Does Kofi like coffee?", "Kofi drinks espresso every morning", 0.25},
	{"programmer", "programming", 0.3},
	{"colour", "color", 0.1}, // spelling variants meet only through character n-grams,
}

var unrelatedPairs = [][2]string{
	{"coding language", "I live in Lisbon"},
	{"which city does she live in", "The tests fail on Windows"},
	{"user is allergic to peanuts", "deploy the billing service on Friday"},
	{"Imogen sketched a lighthouse", "Bertil works at a fintech startup"},
	{"my favourite editor is Neovim", "Ingrid bought a Tesla"},
	{"Rosalind went to the beekeeping club", "The database is PostgreSQL with nightly backups"},
	{"running shoes", "a bowl of ramen with extra chili"},
	{"What pets does Saoirse have?", "The meeting moved to Thursday at 3 pm"},
	{"Does Kofi like coffee?", "Wren's sister lives in Berlin"},
	{"I love hiking in the mountains", "The invoice from the accountant is overdue"},
	{"dark mode", "peanut butter sandwich"},
	{"The quarterly budget was approved", "My cat sleeps on the keyboard"},
}

func TestBuiltinSimilarity(t *testing.T) {
	t.Parallel()
	b := NewBuiltin()
	for _, p := range similarPairs {
		if got := cos(b, p.a, p.b); got < p.min {
			t.Errorf("cos(%q, %q) = %.3f, want ≥ %.2f", p.a, p.b, got, p.min)
		} else {
			t.Logf("cos(%q, %q) = %.3f", p.a, p.b, got)
		}
	}
	for _, p := range unrelatedPairs {
		if got := cos(b, p[0], p[1]); got >= 0.20 {
			t.Errorf("unrelated cos(%q, %q) = %.3f, want < 0.20", p[0], p[1], got)
		} else {
			t.Logf("unrelated cos(%q, %q) = %.3f", p[0], p[1], got)
		}
	}
}

func TestBuiltinVectorShape(t *testing.T) {
	t.Parallel()
	b := NewBuiltin()
	v := b.Vector("Imogen sketched a lighthouse from the harbour last year and shared it with her kids")
	if v.Dim != BuiltinDim || v.Indices == nil {
		t.Fatalf("not a sparse vector of dim %d: %+v", BuiltinDim, v.Dim)
	}
	if n := len(v.Indices); n < 30 || n > 200 {
		t.Errorf("nonzeros = %d, want O(100)", n)
	}
	if !slices.IsSorted(v.Indices) {
		t.Fatal("indices not sorted")
	}
	for i := 1; i < len(v.Indices); i++ {
		if v.Indices[i] == v.Indices[i-1] {
			t.Fatal("duplicate index")
		}
	}
	if d := v.Dot(v); math.Abs(float64(d)-1) > 1e-5 {
		t.Fatalf("norm² = %v", d)
	}
	if z := b.Vector("the and of"); z.Dim != 0 {
		t.Fatalf("stop words only: %+v", z)
	}
	if _, err := search.DecodeVector(v.Encode()); err != nil {
		t.Fatal(err)
	}
}

// Determinism across runs and platforms: a golden fingerprint of one
// embedding. If this changes, stored vectors are no longer comparable and
// Name() must change too.
func TestBuiltinGolden(t *testing.T) {
	t.Parallel()
	b := NewBuiltin()
	v := b.Vector("I prefer Neovim for Go programming")
	var h uint64 = fnvOffset
	for i, j := range v.Indices {
		h = (h ^ uint64(j)) * fnvPrime
		h = (h ^ uint64(math.Float32bits(v.Values[i]))) * fnvPrime
	}
	t.Logf("nnz %d fingerprint %#x", len(v.Indices), h)
	again := NewBuiltin().Vector("I prefer Neovim for Go programming")
	if !slices.Equal(v.Indices, again.Indices) || !slices.Equal(v.Values, again.Values) {
		t.Fatal("two embedders disagree")
	}
}

func TestEmbedContext(t *testing.T) {
	t.Parallel()
	b := NewBuiltin()
	got, err := b.Embed(context.Background(), []string{"a cat", "", "a dog"})
	if err != nil || len(got) != 3 || got[1].Dim != 0 || got[0].Dim != BuiltinDim {
		t.Fatalf("Embed = %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
