package search_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/search"
)

// packTexts are short notes of the kind a store holds most of.
var packTexts = []string{
	"The reviewer in warsaw reviews profiling changes every wednesday",
	"Fixed a flaky bug in the exporter where searching broke under vim",
	"deploy",
	"zzq721608 qqxv plorb",
	"Our on-call rotation moves to a weekly schedule starting next month; Priya owns the handover doc",
	"colour color colours programming programmer programmed",
}

// sameBits reports whether two decoded vectors are bit for bit equal.
func sameBits(a, b search.Vector) bool {
	if a.Dim != b.Dim || len(a.Indices) != len(b.Indices) || len(a.Values) != len(b.Values) || (a.Indices == nil) != (b.Indices == nil) {
		return false
	}
	for i := range a.Indices {
		if a.Indices[i] != b.Indices[i] {
			return false
		}
	}
	for i := range a.Values {
		if math.Float32bits(a.Values[i]) != math.Float32bits(b.Values[i]) {
			return false
		}
	}
	return true
}

func TestPackVectorRoundTrip(t *testing.T) {
	embedders := map[string]interface{ Vector(string) search.Vector }{
		"wordvectors": embed.NewWordVectors(),
		"hashed":      embed.NewBuiltin(),
	}
	for name, em := range embedders {
		for _, text := range packTexts {
			v := em.Vector(text)
			b := v.EncodeCompact()
			p := search.PackVector(b)
			if hasTail := len(v.Indices) > 0 && int(v.Indices[len(v.Indices)-1]) == v.Dim-1; hasTail && len(p) >= len(b) {
				t.Errorf("%s %q: packed %d bytes, version 2 %d", name, text, len(p), len(b))
			}
			back, err := search.UnpackVector(p)
			if err != nil {
				t.Fatalf("%s %q: unpack: %v", name, text, err)
			}
			if !bytes.Equal(back, b) {
				t.Fatalf("%s %q: unpacked bytes differ from the version 2 encoding", name, text)
			}
			want, err := search.DecodeVector(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := search.DecodeVector(p)
			if err != nil {
				t.Fatalf("%s %q: decode packed: %v", name, text, err)
			}
			if !sameBits(got, want) {
				t.Fatalf("%s %q: packed vector decodes to other bits", name, text)
			}
			q := em.Vector("profiling reviewer warsaw")
			if got.Dot(q) != want.Dot(q) {
				t.Fatalf("%s %q: cosine moved: %v vs %v", name, text, got.Dot(q), want.Dot(q))
			}
		}
	}
}

// sparseV2 builds a version 2 sparse encoding by hand.
func sparseV2(dim uint64, idx []uint64, halves []uint16) []byte {
	b := []byte{2, 1}
	b = binary.AppendUvarint(b, dim)
	b = binary.AppendUvarint(b, uint64(len(idx)))
	var prev uint64
	for i, j := range idx {
		if i == 0 {
			b = binary.AppendUvarint(b, j)
		} else {
			b = binary.AppendUvarint(b, j-prev)
		}
		prev = j
	}
	for _, h := range halves {
		b = binary.LittleEndian.AppendUint16(b, h)
	}
	return b
}

func TestPackVectorShapes(t *testing.T) {
	many := make([]uint64, 300)
	manyVals := make([]uint16, 300)
	for i := range many {
		many[i] = uint64(i * 7)
		manyVals[i] = uint16(0x2000 + i) // 300 distinct values: no palette
	}
	tail := make([]uint64, 64)
	tailVals := make([]uint16, 64)
	for i := range tail {
		tail[i] = 1000 - 64 + uint64(i)
		tailVals[i] = uint16(0x2400 + i)
	}
	oneValue := []uint64{3, 90, 400, 999}
	cases := map[string]struct {
		b      []byte
		packed bool
	}{
		"only a tail":           {sparseV2(1000, tail, tailVals), true},
		"one palette value":     {sparseV2(1000, append(oneValue[:3:3], tail...), append([]uint16{0x3c00, 0x3c00, 0x3c00}, tailVals...)), true},
		"too many values":       {sparseV2(1<<20, many, manyVals), false},
		"head ends at the tail": {sparseV2(1000, append([]uint64{5, 935}, tail...), append([]uint16{0x3c00, 0xbc00}, tailVals...)), true},
		"dense version 2":       {search.Vector{Dim: 3, Values: []float32{0.6, 0.8, 0}}.EncodeCompact(), false},
		"version 1":             {search.Vector{Dim: 1000, Indices: []uint32{1, 999}, Values: []float32{0.6, 0.8}}.Encode(), false},
		"empty":                 {search.Vector{}.EncodeCompact(), false},
	}
	// A needlessly long varint (the count 2 as 0x82 0x00) decodes to the
	// same vector but would not unpack to the same bytes: kept as it is.
	long := []byte{2, 1}
	long = binary.AppendUvarint(long, 1000)
	long = append(long, 0x80|66, 0x00)
	long = append(long, sparseV2(1000, append([]uint64{5, 7}, tail...), append([]uint16{1, 1}, tailVals...))[5:]...)
	cases["long varint"] = struct {
		b      []byte
		packed bool
	}{long, false}
	for name, c := range cases {
		p := search.PackVector(c.b)
		if search.IsPacked(p) != c.packed {
			t.Errorf("%s: packed = %v, want %v", name, search.IsPacked(p), c.packed)
		}
		if !c.packed && !bytes.Equal(p, c.b) {
			t.Errorf("%s: an unpacked form must be returned unchanged", name)
		}
		back, err := search.UnpackVector(p)
		if err != nil || !bytes.Equal(back, c.b) {
			t.Errorf("%s: unpack = %v, same bytes %v", name, err, bytes.Equal(back, c.b))
		}
	}
	// A tail of values one exponent apart takes 13 bits a value, not 16.
	if p := search.PackVector(cases["only a tail"].b); len(p) > 10+64*13/8 {
		t.Errorf("a 64-value tail packs to %d bytes", len(p))
	}
	if _, err := search.DecodeVector(long); err != nil {
		t.Fatalf("the long-varint encoding is still a vector: %v", err)
	}
}

func TestUnpackVectorRejectsDamage(t *testing.T) {
	v := embed.NewWordVectors().Vector(packTexts[0])
	p := search.PackVector(v.EncodeCompact())
	if !search.IsPacked(p) {
		t.Fatal("expected a packed form")
	}
	for n := 1; n < len(p); n++ {
		if _, err := search.UnpackVector(p[:n]); !errors.Is(err, search.ErrBadVector) {
			t.Fatalf("truncated to %d of %d bytes: err = %v, want ErrBadVector", n, len(p), err)
		}
	}
	if _, err := search.DecodeVector(append(p[:len(p):len(p)], 0)); !errors.Is(err, search.ErrBadVector) {
		t.Fatalf("a trailing byte: err = %v", err)
	}
}

func FuzzUnpackVector(f *testing.F) {
	wv := embed.NewWordVectors()
	for _, text := range packTexts {
		f.Add(search.PackVector(wv.Vector(text).EncodeCompact()))
	}
	f.Add([]byte{3, 1, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := search.UnpackVector(b)
		if err != nil {
			return
		}
		// Whatever unpacks packs back to itself or stays version 2.
		if p := search.PackVector(u); search.IsPacked(p) {
			if u2, err := search.UnpackVector(p); err != nil || !bytes.Equal(u2, u) {
				t.Fatalf("repacking changed the bytes: %v", err)
			}
		}
	})
}

// DecodeVector reads a packed encoding straight, without unpacking it
// first: the same vector, bit for bit, as decoding what UnpackVector gives,
// and an error exactly when either step fails.
func FuzzDecodePacked(f *testing.F) {
	wv := embed.NewWordVectors()
	for _, text := range packTexts {
		f.Add(search.PackVector(wv.Vector(text).EncodeCompact()))
	}
	f.Add([]byte{3, 1, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Add([]byte{3, 1, 4, 0, 2, 0, 0, 0x00, 0x7c, 0x00, 0x3c})
	f.Fuzz(func(t *testing.T, b []byte) {
		if !search.IsPacked(b) {
			return
		}
		got, err := search.DecodeVector(b)
		u, uerr := search.UnpackVector(b)
		var want search.Vector
		if uerr == nil {
			want, uerr = search.DecodeVector(u)
		}
		if (err == nil) != (uerr == nil) {
			t.Fatalf("direct: %v; through version 2: %v", err, uerr)
		}
		if err == nil && !sameBits(got, want) {
			t.Fatalf("direct %v, through version 2 %v", got, want)
		}
	})
}

func TestDecodePackedMatchesUnpacked(t *testing.T) {
	wv := embed.NewWordVectors()
	packed := 0
	for _, text := range packTexts {
		p := search.PackVector(wv.Vector(text).EncodeCompact())
		if !search.IsPacked(p) {
			continue // stored as version 2: nothing to compare
		}
		packed++
		u, err := search.UnpackVector(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := search.DecodeVector(u)
		if err != nil {
			t.Fatal(err)
		}
		got, err := search.DecodeVector(p)
		if err != nil || !sameBits(got, want) || len(got.Indices) == 0 {
			t.Fatalf("%q: direct %v (%v), unpacked %v", text, got, err, want)
		}
	}
	if packed < 3 {
		t.Fatalf("only %d of the texts pack: the test compares too little", packed)
	}
}
