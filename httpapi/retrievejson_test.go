package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

// randomRetrieveResponse is a response of random shape: strings with every
// ASCII byte, multi-byte and invalid UTF-8, U+2028; numbers from tiny to
// huge; nil and empty lists and maps.
func randomRetrieveResponse(r *rand.Rand) wire.RetrieveResponse {
	pieces := []string{"plain", "<b>&amp;</b>", "quote \" back \\ slash", "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "\b\f",
		"é 日本 🙂", "bad \xff\xfe utf8", "line\u2028sep\u2029", "", " ", "mem_01m92jtf8kn32fcp40m24wcdvd"}
	str := func() string {
		var sb strings.Builder
		for range r.IntN(4) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		if r.IntN(5) == 0 {
			sb.WriteByte(byte(r.IntN(128)))
		}
		return sb.String()
	}
	num := func() float64 {
		switch r.IntN(8) {
		case 0:
			return []float64{0, math.Copysign(0, -1), 1e-7, -1e-7, 1e21, 1e20, 123456789012345678, 5e-324, math.MaxFloat64, 1e-6, 0.000001234}[r.IntN(11)]
		case 1:
			return r.NormFloat64() * 1e6
		}
		return math.Round(r.Float64()*1e4) / 1e4
	}
	strs := func() []string {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		out := make([]string, 1+r.IntN(3))
		for i := range out {
			out[i] = str()
		}
		return out
	}
	res := wire.RetrieveResponse{RetrievalID: str(), Context: str(), TokensUsed: r.IntN(5000) - 10, Notes: strs()}
	if r.IntN(4) == 0 {
		res.Hint = str()
	}
	if r.IntN(10) > 0 {
		res.Items = make([]wire.RetrieveItem, r.IntN(12))
	}
	channels := []string{"lexical", "semantic", "structured", "graph", "recent", "critical", "<x>"}
	for i := range res.Items {
		it := wire.RetrieveItem{MemoryID: str(), VersionID: str(), Kind: str(), Type: str(), Content: str(), Score: num(),
			Tokens: r.IntN(300), Trust: num(), Uncertainty: num(), Action: str(), EpisodeIDs: strs(), Explanation: str()}
		if r.IntN(6) > 0 {
			it.Channels = map[string]wire.ChannelHit{}
			for _, c := range channels {
				if r.IntN(2) == 0 {
					it.Channels[c] = wire.ChannelHit{Rank: r.IntN(100) - 1, Score: num()}
				}
			}
		}
		res.Items[i] = it
	}
	return res
}

// The hand-written encoder writes exactly what json.Encoder writes, on
// 5,000 random responses.
func TestRetrieveJSONMatchesEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 5000; i++ {
		res := randomRetrieveResponse(r)
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(res); err != nil {
			t.Fatal(err)
		}
		got, ok := appendRetrieveResponse(nil, &res)
		if !ok {
			t.Fatalf("response %d: not written", i)
		}
		if got = append(got, '\n'); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("response %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
}

// A number JSON cannot hold is refused as encoding/json refuses it: the
// response goes through writeJSON, which returns the error.
func TestRetrieveJSONNotFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, res := range []wire.RetrieveResponse{
			{Items: []wire.RetrieveItem{{Score: f}}},
			{Items: []wire.RetrieveItem{{Channels: map[string]wire.ChannelHit{"lexical": {Score: f}}}}},
		} {
			if _, ok := appendRetrieveResponse(nil, &res); ok {
				t.Fatalf("%v written", f)
			}
			rec := httptest.NewRecorder()
			if err := writeRetrieve(rec, &res); err == nil {
				t.Fatalf("%v: no error", f)
			}
		}
	}
	rec := httptest.NewRecorder()
	res := wire.RetrieveResponse{RetrievalID: "ret_1", Items: []wire.RetrieveItem{}}
	if err := writeRetrieve(rec, &res); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Body.String(), "{\"retrieval_id\":\"ret_1\",\"context\":\"\",\"tokens_used\":0,\"items\":[]}\n"; got != want ||
		rec.Header().Get("Content-Length") != fmt.Sprint(len(want)) || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%q %v", got, rec.Header())
	}
}

func benchRetrieveResponse() wire.RetrieveResponse {
	res := wire.RetrieveResponse{RetrievalID: "ret_01m92jtf8kn32fcp40m24wcdvd", Context: strings.Repeat("- a line of packed context about something said\n", 30), TokensUsed: 640}
	for i := 0; i < 10; i++ {
		res.Items = append(res.Items, wire.RetrieveItem{MemoryID: "mem_01m92jtf8kn32fcp40m24wcdvd", VersionID: "ver_01m92jtf8kn32fcp40m3d1d5ph",
			Kind: "semantic", Type: "fact", Content: "Fixed a cold bug in the gateway where the export broke", Score: 0.8517, Tokens: 19,
			Trust: 0.6891, Uncertainty: 1, Action: "HINT", EpisodeIDs: []string{"ep_01m92jtf8kn32fcp40m24wcdvd"},
			Channels:    map[string]wire.ChannelHit{"lexical": {Rank: 5, Score: 11.0728}, "semantic": {Rank: 3, Score: 0.7462}},
			Explanation: "found by lexical #5 (bm25 11.07: alpha 2.41, beta 2.41, gamma 2.35), semantic #3 (cosine 0.75); fused 0.805 +0.020 usefulness +0.027 confidence = 0.852; HINT (trust 0.69, uncertainty 1.00); ranked in Facts, 20 tokens"})
	}
	return res
}

func BenchmarkRetrieveJSON(b *testing.B) {
	res := benchRetrieveResponse()
	b.Run("encoder", func(b *testing.B) {
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := json.NewEncoder(&buf).Encode(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		var out []byte
		b.ReportAllocs()
		for b.Loop() {
			out, _ = appendRetrieveResponse(out[:0], &res)
		}
	})
}
