package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestTableChecksum guards the committed table against accidental edits:
// words.bin must hash to words.bin.sha256, which gen writes with it.
func TestTableChecksum(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256(Raw())
	if got := hex.EncodeToString(sum[:]); got != Checksum() {
		t.Fatalf("words.bin SHA-256 %s, words.bin.sha256 says %s", got, Checksum())
	}
}

func TestTableShape(t *testing.T) {
	t.Parallel()
	tb := Load()
	if tb.Len() != 100_000 || tb.Dim() != 64 {
		t.Fatalf("table is %d×%d, want 100000×64", tb.Len(), tb.Dim())
	}
	// GloVe lists words by frequency: ranks increase down the table.
	for i := 1; i < tb.Len(); i++ {
		if tb.Rank(i) <= tb.Rank(i-1) {
			t.Fatalf("rank of row %d (%q) = %d, not after row %d's %d", i, tb.Word(i), tb.Rank(i), i-1, tb.Rank(i-1))
		}
	}
	for _, w := range []string{"car", "vehicle", "kids", "son", "dinner", "cilantro", "diet", "phone"} {
		if _, ok := tb.Lookup(w); !ok {
			t.Errorf("%q is not in the table", w)
		}
	}
	for _, w := range []string{"the", "and", ",", "Car"} { // stop words, punctuation, capitals never reach a lookup
		if _, ok := tb.Lookup(w); ok {
			t.Errorf("%q is in the table", w)
		}
	}
}

// TestTableSimilarities checks that the vectors survived the conversion:
// related words are closer than unrelated ones.
func TestTableSimilarities(t *testing.T) {
	t.Parallel()
	tb := Load()
	cos := func(a, b string) float64 {
		i, ok1 := tb.Lookup(a)
		j, ok2 := tb.Lookup(b)
		if !ok1 || !ok2 {
			t.Fatalf("%q or %q missing", a, b)
		}
		return tb.Cosine(i, j)
	}
	for _, c := range []struct{ w, near, far string }{
		{"car", "vehicle", "banana"},
		{"kids", "children", "database"},
		{"son", "daughter", "guitar"},
		{"dinner", "lunch", "hockey"},
		{"phone", "call", "river"},
		{"pipeline", "build", "mother"},
		{"paris", "france", "keyboard"},
	} {
		near, far := cos(c.w, c.near), cos(c.w, c.far)
		if near <= far+0.2 {
			t.Errorf("cos(%s, %s) = %.2f, cos(%s, %s) = %.2f: want the first clearly larger", c.w, c.near, near, c.w, c.far, far)
		} else {
			t.Logf("cos(%s, %s) = %.2f > cos(%s, %s) = %.2f", c.w, c.near, near, c.w, c.far, far)
		}
	}
}
