package embed

import (
	"context"
	"testing"

	"github.com/mnemon-dev/mnemon/embed/vectors"
)

// paraphrases share meaning but no word with their query, while the
// unrelated text is about something else: the hashed features alone give
// both nothing; the word vectors must rank the paraphrase first.
var paraphrases = []struct{ query, para, unrelated string }{
	{"how are the kids doing?", "my son started school this week", "the invoice is overdue"},
	{"what vehicle does she have", "she drives a car", "the database migration ran overnight"},
	{"is the build pipeline green?", "CI is failing on main since the last merge", "my grandmother grows tomatoes"},
	{"how do I reach them?", "they only take calls by phone", "the quarterly budget was approved"},
	{"order me dinner tonight", "no cilantro, ever", "the server restarts at midnight"},
	{"order me dinner tonight", "I'm doing keto, so no bread or pasta", "the server restarts at midnight"},
}

func wcos(w *WordVectors, x, y string) float64 {
	return float64(w.Vector(x).Dot(w.Vector(y)))
}

func TestWordVectorsParaphrase(t *testing.T) {
	t.Parallel()
	w, h := NewWordVectors(), NewBuiltin()
	for _, p := range paraphrases {
		para, unrel := wcos(w, p.query, p.para), wcos(w, p.query, p.unrelated)
		old := cos(h, p.query, p.para)
		if para < 0.1 || para <= unrel {
			t.Errorf("%q: paraphrase %q %.3f (hashed %.3f), unrelated %q %.3f: want the paraphrase ≥ 0.10 and first", p.query, p.para, para, old, p.unrelated, unrel)
		} else {
			t.Logf("%q: paraphrase %q %.3f (hashed %.3f), unrelated %.3f", p.query, p.para, para, old, unrel)
		}
	}
}

// TestWordVectorsKeepsBuiltin runs the hashed embedder's similarity table
// through WordVectors: shared words still count (at least 3/4 of the
// hashed cosine the table asks for: they are half the vector), and unrelated
// text stays below 0.20.
func TestWordVectorsKeepsBuiltin(t *testing.T) {
	t.Parallel()
	w := NewWordVectors()
	for _, p := range similarPairs {
		if got := wcos(w, p.a, p.b); got < p.min*0.75 {
			t.Errorf("cos(%q, %q) = %.3f, want ≥ %.2f", p.a, p.b, got, p.min*0.75)
		} else {
			t.Logf("cos(%q, %q) = %.3f", p.a, p.b, got)
		}
	}
	for _, p := range unrelatedPairs {
		if got := wcos(w, p[0], p[1]); got >= 0.20 {
			t.Errorf("unrelated cos(%q, %q) = %.3f, want < 0.20", p[0], p[1], got)
		} else {
			t.Logf("unrelated cos(%q, %q) = %.3f", p[0], p[1], got)
		}
	}
}

func TestWordVectorsShape(t *testing.T) {
	t.Parallel()
	w := NewWordVectors()
	if w.Name() == NewBuiltin().Name() || w.Dim() != BuiltinDim+vectors.Load().Dim() || w.DenseTail() != vectors.Load().Dim() {
		t.Fatalf("name %q dim %d tail %d", w.Name(), w.Dim(), w.DenseTail())
	}
	vs, err := w.Embed(context.Background(), []string{"my son plays guitar", "", "the and of", "Zyxqwv Blorptang"})
	if err != nil {
		t.Fatal(err)
	}
	if v := vs[0]; v.Dim != w.Dim() || v.Indices[len(v.Indices)-1] < BuiltinDim {
		t.Errorf("known words: no dense part: %+v", v.Indices)
	}
	for i := 1; i <= 2; i++ {
		if !vs[i].IsZero() {
			t.Errorf("text %d has no content word but a vector", i)
		}
	}
	// Unknown words only: the hashed part alone, in the same space.
	if v := vs[3]; v.Dim != w.Dim() || v.Indices[len(v.Indices)-1] >= BuiltinDim {
		t.Errorf("unknown words: %+v", v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Embed(ctx, []string{"x"}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestByName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{WordVectorsName, "builtin-hash-v1"} {
		e, ok := ByName(name)
		if !ok || e.Name() != name {
			t.Errorf("ByName(%q) = %v, %v", name, e, ok)
		}
	}
	if _, ok := ByName("openai"); ok {
		t.Error("ByName accepts an unknown name")
	}
}
