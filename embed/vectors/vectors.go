// Package vectors holds the word vectors the built-in embedder averages: the
// 100,000 most frequent English content words of GloVe 6B (100-d), with the
// common component removed and projected onto 64 principal directions,
// stored as int8 with a per-row scale in words.bin (8 MB), which the binary
// embeds. gen/ is the script that made it; ACKNOWLEDGEMENT.md and the
// LICENSE files say where the vectors come from and under what terms.
package vectors

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
)

//go:embed words.bin
var table []byte

//go:embed words.bin.sha256
var checksum string

// Checksum returns the SHA-256 of words.bin recorded beside it (hex).
func Checksum() string { return strings.Fields(checksum)[0] }

// Raw returns the embedded table's bytes, for verifying it; do not modify.
func Raw() []byte { return table }

// Table is a decoded word table. It is read-only and safe for concurrent use.
type Table struct {
	dim    int
	scales []float32 // row → scale: value = scale · int8
	ranks  []uint32  // row → position in GloVe's frequency order (0 = most frequent)
	rows   []byte    // len(scales) rows of dim int8 values
	words  []string
	index  map[string]int32
}

var (
	once   sync.Once
	loaded *Table
)

// Load returns the embedded table, decoding it on first use (about 20 ms:
// the word index is a map of 100,000 strings).
func Load() *Table {
	once.Do(func() {
		t, err := decode(table)
		if err != nil {
			panic(fmt.Sprintf("vectors: embedded words.bin: %v", err)) // the table is tested; this is a broken build
		}
		loaded = t
	})
	return loaded
}

// Layout, version 1, little-endian:
//
//	"MNWV" 01 00 00 00
//	uint32 n, uint32 dim
//	n float32 scales, n uint32 ranks, n·dim int8 values
//	n words, each followed by '\n'
const magic = "MNWV\x01\x00\x00\x00"

func decode(b []byte) (*Table, error) {
	if len(b) < len(magic)+8 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("not a version 1 word table")
	}
	p := b[len(magic):]
	n, dim := int(binary.LittleEndian.Uint32(p)), int(binary.LittleEndian.Uint32(p[4:]))
	p = p[8:]
	if dim <= 0 || dim > 1024 || n <= 0 || len(p) < n*(8+dim) {
		return nil, fmt.Errorf("bad sizes %d×%d", n, dim)
	}
	t := &Table{dim: dim, scales: make([]float32, n), ranks: make([]uint32, n), words: make([]string, 0, n), index: make(map[string]int32, n)}
	for i := range n {
		t.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	p = p[4*n:]
	for i := range n {
		t.ranks[i] = binary.LittleEndian.Uint32(p[4*i:])
	}
	p = p[4*n:]
	t.rows, p = p[:n*dim], p[n*dim:]
	all := string(p) // one copy; the words are substrings of it
	for len(all) > 0 && len(t.words) < n {
		w, rest, ok := strings.Cut(all, "\n")
		if !ok {
			return nil, fmt.Errorf("word %d not terminated", len(t.words))
		}
		t.index[w] = int32(len(t.words))
		t.words = append(t.words, w)
		all = rest
	}
	if len(t.words) != n || all != "" {
		return nil, fmt.Errorf("%d words for %d rows", len(t.words), n)
	}
	return t, nil
}

// Dim returns the number of dimensions of a row.
func (t *Table) Dim() int { return t.dim }

// Len returns the number of words.
func (t *Table) Len() int { return len(t.words) }

// Lookup returns the row of word (lower-case, as the analyzer yields it).
func (t *Table) Lookup(word string) (int, bool) {
	i, ok := t.index[word]
	return int(i), ok
}

// Word returns the word of row i.
func (t *Table) Word(i int) string { return t.words[i] }

// Rank returns row i's position in GloVe's frequency order, 0 for the most
// frequent word: GloVe lists its vocabulary by corpus frequency.
func (t *Table) Rank(i int) int { return int(t.ranks[i]) }

// AddTo adds w times row i to dst, which must have Dim elements.
func (t *Table) AddTo(dst []float32, i int, w float32) {
	w *= t.scales[i]
	row := t.rows[i*t.dim : (i+1)*t.dim]
	dst = dst[:len(row)]
	for j, x := range row {
		dst[j] += w * float32(int8(x))
	}
}

// Cosine returns the cosine similarity of rows i and j.
func (t *Table) Cosine(i, j int) float64 {
	a, b := t.rows[i*t.dim:(i+1)*t.dim], t.rows[j*t.dim:(j+1)*t.dim]
	var dot, na, nb int64
	for k := range a {
		x, y := int64(int8(a[k])), int64(int8(b[k]))
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float64(dot) / math.Sqrt(float64(na)*float64(nb))
}
