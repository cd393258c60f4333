package embed

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/embed/vectors"
)

func cosv(a, b search.Vector) float64 {
	m := map[uint32]float32{}
	for i, ix := range a.Indices {
		m[ix] = a.Values[i]
	}
	var d, na, nb float64
	for i, ix := range b.Indices {
		d += float64(m[ix] * b.Values[i])
	}
	for _, x := range a.Values {
		na += float64(x * x)
	}
	for _, x := range b.Values {
		nb += float64(x * x)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d
}

func TestCosLocal(t *testing.T) {
	f := os.Getenv("COS")
	if f == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(f)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	w := NewWordVectors()
	h := NewBuiltin()
	q := lines[0]
	qv, qh := w.Vector(q), h.Vector(q)
	for _, l := range lines[1:] {
		fmt.Printf("%.3f  hash %.3f  %s\n", cosv(qv, w.Vector(l)), cosv(qh, h.Vector(l)), l)
	}
}

func TestWordCosLocal(t *testing.T) {
	ws := os.Getenv("WORDS")
	if ws == "" {
		t.Skip()
	}
	tb := vectorsLoad()
	words := strings.Fields(ws)
	for _, a := range words {
		ia, ok := tb.Lookup(a)
		if !ok {
			fmt.Println("missing", a)
			continue
		}
		var row []string
		for _, b := range words {
			ib, ok := tb.Lookup(b)
			if !ok {
				continue
			}
			row = append(row, fmt.Sprintf("%s:%.2f", b, tb.Cosine(ia, ib)))
		}
		fmt.Println(a, tb.Rank(ia), strings.Join(row, " "))
	}
	// mean pairwise cosine over random words of rank < 20000
	var s float64
	var n int
	for i := 0; i < tb.Len(); i += 997 {
		for j := i + 1; j < tb.Len(); j += 1499 {
			s += tb.Cosine(i, j)
			n++
		}
	}
	fmt.Printf("mean random cosine %.3f over %d pairs\n", s/float64(n), n)
}
var vectorsLoad = vectors.Load

func denseOf(w *WordVectors, text string, c []float64, a float64) []float64 {
	tb := vectors.Load()
	dense := make([]float32, tb.Dim())
	w.hash.an.Words(text, func(word, _ string) {
		if r, ok := tb.Lookup(word); ok {
			p := 1 / (float64(tb.Rank(r)+1) * zipfHarmonic)
			tb.AddTo(dense, r, float32(a/(a+p)))
		}
	})
	out := make([]float64, len(dense))
	for i, x := range dense {
		out[i] = float64(x)
	}
	if c != nil {
		var d float64
		for i := range out {
			d += out[i] * c[i]
		}
		for i := range out {
			out[i] -= d * c[i]
		}
	}
	var n float64
	for _, x := range out {
		n += x * x
	}
	if n > 0 {
		for i := range out {
			out[i] /= sqrt(n)
		}
	}
	return out
}

func dotf(a, b []float64) float64 {
	var d float64
	for i := range a {
		d += a[i] * b[i]
	}
	return d
}

func commonDir(a float64) []float64 {
	tb := vectors.Load()
	acc := make([]float32, tb.Dim())
	for i := 0; i < tb.Len(); i++ {
		p := 1 / (float64(tb.Rank(i)+1) * zipfHarmonic)
		tb.AddTo(acc, i, float32(p*a/(a+p)))
	}
	c := make([]float64, len(acc))
	var n float64
	for i, x := range acc {
		c[i] = float64(x)
		n += c[i] * c[i]
	}
	for i := range c {
		c[i] /= sqrt(n)
	}
	return c
}

func TestSentLocal(t *testing.T) {
	f := os.Getenv("SENT")
	if f == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(f)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	w := NewWordVectors()
	c := commonDir(sifA)
	tb := vectors.Load()
	for _, wd := range []string{"one", "good", "ok", "family", "doctor", "surgery", "printer", "interest"} {
		r, _ := tb.Lookup(wd)
		v := make([]float32, tb.Dim())
		tb.AddTo(v, r, 1)
		vf := make([]float64, len(v))
		var n float64
		for i, x := range v {
			vf[i] = float64(x)
			n += vf[i] * vf[i]
		}
		fmt.Printf("cos(%s, common) %.2f\n", wd, dotf(vf, c)/sqrt(n))
	}
	for _, a := range []float64{1e-3, 1e-4} {
		for _, cc := range [][]float64{nil, commonDir(a)} {
			q := denseOf(w, lines[0], cc, a)
			fmt.Printf("a=%g common removed=%v\n", a, cc != nil)
			for _, l := range lines[1:] {
				fmt.Printf("   %.3f %s\n", dotf(q, denseOf(w, l, cc, a)), l)
			}
		}
	}
}
func sqrt(x float64) float64 { return math.Sqrt(x) }

func TestPersonLocal(t *testing.T) {
	ws := os.Getenv("PERSON")
	if ws == "" {
		t.Skip()
	}
	tb := vectors.Load()
	proto := func(list string) []int {
		var out []int
		for _, w := range strings.Fields(list) {
			if r, ok := tb.Lookup(w); ok {
				out = append(out, r)
			}
		}
		return out
	}
	people := proto("john maria david anna peter sarah michael laura james elena")
	places := proto("paris berlin london madrid boston lyon porto oslo leeds kyoto")
	avg := func(r int, ps []int) float64 {
		s := 0.0
		for _, p := range ps {
			s += tb.Cosine(r, p)
		}
		return s / float64(len(ps))
	}
	for _, w := range strings.Fields(ws) {
		r, ok := tb.Lookup(w)
		if !ok {
			fmt.Println(w, "missing")
			continue
		}
		fmt.Printf("%-10s rank %6d person %.2f place %.2f\n", w, tb.Rank(r), avg(r, people), avg(r, places))
	}
}
