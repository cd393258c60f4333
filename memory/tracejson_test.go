package memory

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestTraceItemsJSONMatchesStdlib(t *testing.T) {
	items := TraceItems{
		{
			MemoryID: "mem_1", VersionID: "ver_1",
			Channels: ChannelHits{{Channel: "lexical", ChannelHit: ChannelHit{Rank: 1, Score: 2.5}}, {Channel: "semantic", ChannelHit: ChannelHit{Rank: 3, Score: 0.61}}},
			Fused:    0.97, Terms: Terms{{Name: "confidence", Value: 0.027}, {Name: "usefulness", Value: 0.02}},
			Final: 1.017, Rank: 1, Tokens: 11, Trust: 0.69, Action: ActionHint, Packed: true, Used: true,
			Reason: "ranked", Explanation: "quote \" backslash \\ newline \n tab \t ctrl \x01 <html> & é 日本 \u2028",
		},
		{MemoryID: "mem_2", VersionID: "ver_2", Rank: 2, Reason: "limit reached", Fused: 1e-7, Final: -0.5},
		{MemoryID: "bad \xff utf8", VersionID: "v", Channels: ChannelHits{}, Terms: Terms{}},
	}
	got, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	var back TraceItems
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("decode %s: %v", got, err)
	}
	want := append(TraceItems(nil), items...)
	want[2].MemoryID = "bad \ufffd utf8"
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, want)
	}
	// The same values through the standard encoder decode identically.
	std, err := json.Marshal([]TraceItem(want))
	if err != nil {
		t.Fatal(err)
	}
	var viaStd TraceItems
	if err := json.Unmarshal(std, &viaStd); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaStd, back) {
		t.Fatalf("differs from encoding/json:\n%s\n%s", std, got)
	}
}

func TestTraceItemsNonFinite(t *testing.T) {
	b, err := json.Marshal(TraceItems{{Fused: math.NaN(), Final: math.Inf(1)}})
	if err != nil || !json.Valid(b) {
		t.Fatalf("%s: %v", b, err)
	}
}

func BenchmarkTraceItemsJSON(b *testing.B) {
	items := benchItems()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := items.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTraceItemsStdlib(b *testing.B) {
	items := []TraceItem(benchItems())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := json.Marshal(items); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTraceItemsBinaryRoundTrip(t *testing.T) {
	for _, items := range []TraceItems{
		nil,
		{},
		{
			{MemoryID: "mem_1", VersionID: "ver_1", Channels: ChannelHits{{Channel: "lexical", ChannelHit: ChannelHit{Rank: 1, Score: 2.5}}, {Channel: "x", ChannelHit: ChannelHit{Rank: math.MaxInt32, Score: -math.MaxFloat64}}},
				Fused: 0.97, Terms: Terms{{Name: "contested", Value: -0.05}, {Name: "usefulness", Value: 0.02}}, Final: 1.017, Rank: 1, Tokens: 11,
				Trust: 0.69, Action: ActionHint, Packed: true, Reason: "ranked", Explanation: "quote \" é 日本 \x00"},
			{MemoryID: "mem_2", Rank: -3, Channels: ChannelHits{}, Terms: Terms{}},
		},
	} {
		b := items.AppendBinary(nil)
		got, err := DecodeTraceItems(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, items) {
			t.Fatalf("round trip:\n got %#v\nwant %#v", got, items)
		}
	}
}

func FuzzDecodeTraceItems(f *testing.F) {
	f.Add(TraceItems{{MemoryID: "m", Channels: ChannelHits{{Channel: "a", ChannelHit: ChannelHit{Rank: 1}}}, Terms: Terms{{Name: "t", Value: 1}}}}.AppendBinary(nil))
	f.Add([]byte{1, 1, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := DecodeTraceItems(b)
		if err != nil {
			return
		}
		again, err := DecodeTraceItems(items.AppendBinary(nil))
		if err != nil || len(again) != len(items) {
			t.Fatalf("re-encoding %d items: %v", len(items), err)
		}
	})
}

func BenchmarkTraceItemsBinary(b *testing.B) {
	items := benchItems()
	buf := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = items.AppendBinary(buf[:0])
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}

// benchItems is a typical trace: 120 candidates found by two channels.
func benchItems() TraceItems {
	items := make(TraceItems, 120)
	for i := range items {
		items[i] = TraceItem{
			MemoryID: "mem_01m8pdnmj24tyhevq23r9xxpg1", VersionID: "ver_01m8pdnmj24tyhevq23r9xxpg1",
			Channels: ChannelHits{{Channel: "lexical", ChannelHit: ChannelHit{Rank: i + 1, Score: 2.5}}, {Channel: "semantic", ChannelHit: ChannelHit{Rank: i + 2, Score: 0.5}}},
			Terms:    Terms{{Name: "confidence", Value: 0.027}, {Name: "usefulness", Value: 0.02}}, Fused: 0.9, Final: 0.95,
			Rank: i + 1, Tokens: 20, Trust: 0.7, Action: ActionHint, Reason: "limit reached",
		}
	}
	return items
}
