package memory

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// fixtureItems are the items every stored fixture encodes: the first 30
// candidates of a real retrieval's trace (testdata/trace_items.json), then
// values and ids of unusual shapes. With used, two items are Used (a
// version 3 encoding).
func fixtureItems(t *testing.T, used bool) TraceItems {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "trace_items.json"))
	if err != nil {
		t.Fatal(err)
	}
	var items TraceItems
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	nums := []float64{0, math.Copysign(0, -1), 0.725, -0.03, 1.0 / 3, 0.1 + 0.2, 1e300, -1e-300, 4503599627370.4961,
		math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, 123456.7891, -7}
	for i, x := range nums {
		items = append(items, TraceItem{
			MemoryID: "mem_01m92jtf8kn32fcp40m24wcdvd", VersionID: "ver_01m92jtf8kn32fcp40m3d1d5ph",
			Channels: ChannelHits{{Channel: "semantic", ChannelHit: ChannelHit{Rank: i, Score: x}}},
			Fused:    x, Terms: Terms{{Name: fmt.Sprintf("term%d", i%3), Value: -x}}, Final: x, Trust: x,
			Rank: i + 1, Tokens: -i, Action: ActionFollow, Reason: "ranked", Explanation: fmt.Sprintf("  two  spaces %v ", x),
		})
	}
	items = append(items,
		TraceItem{MemoryID: "", VersionID: ""},
		TraceItem{MemoryID: "m", VersionID: "ver_", Channels: ChannelHits{}, Terms: Terms{}},
		TraceItem{MemoryID: "mem_日本", VersionID: "v\xff_日本x", Explanation: "é \x00 \""},
		TraceItem{MemoryID: "mem_01m92jtf8kn32fcp40m24wcdvd", VersionID: "ver_01m92jtf8kn32fcp40m24wcdvd"},
		TraceItem{MemoryID: "mem_01M92JTF8KN32FCP40M24WCDVD", VersionID: "ver_81m92jtf8kn32fcp40m24wcdvd"},
		TraceItem{MemoryID: "mem_zzzzzzzzzzzzzzzzzzzzzzzzzz", VersionID: "ver_7zzzzzzzzzzzzzzzzzzzzzzzzz"},
		TraceItem{MemoryID: "mem_00000000000000000000000000", VersionID: "ver_01m92jtf8kn32fcp40m24wcdvd", Rank: -3},
	)
	for i := 0; i < 2*maxTraceNames; i++ {
		items = append(items, TraceItem{MemoryID: fmt.Sprint("mem_", i), VersionID: fmt.Sprint("ver_", i), Reason: fmt.Sprint("reason ", i%(maxTraceNames+10)), Action: ActionIgnore})
	}
	if used {
		items[0].Used, items[5].Used = true, true
	}
	return items
}

// fixtureFiles are the stored encodings of fixtureItems, one a version:
// what databases hold must keep reading whatever the writer does now.
var fixtureFiles = []struct {
	name string
	used bool
	enc  func(TraceItems) []byte
}{
	{"trace_items_v1.bin", false, func(ts TraceItems) []byte { return appendBinaryV1(ts, nil) }},
	{"trace_items_v2.bin", false, func(ts TraceItems) []byte { return ts.AppendBinary(nil) }},
	{"trace_items_v3.bin", true, func(ts TraceItems) []byte { return ts.AppendBinary(nil) }},
	{"trace_items_v4.bin", false, func(ts TraceItems) []byte { b, _ := ts.AppendCompressed(nil, nil); return b }},
	{"trace_items_v4_used.bin", true, func(ts TraceItems) []byte { b, _ := ts.AppendCompressed(nil, nil); return b }},
	{"trace_items_v5.bin", true, func(ts TraceItems) []byte { return ts.appendCompact(nil, traceBinaryV5) }},
	{"trace_items_v6.bin", true, func(ts TraceItems) []byte { return ts.appendCompact(nil, traceBinaryV6) }},
	{"trace_items_v7.bin", true, func(ts TraceItems) []byte { return ts.AppendCompact(nil) }},
}

// Every stored encoding decodes to its items, value for value. Set
// MNEMON_WRITE_TRACE_FIXTURES=1 to write a fixture that is missing (never
// rewrite one: it stands for rows already on disk).
func TestTraceItemsFixtures(t *testing.T) {
	for _, f := range fixtureFiles {
		items := fixtureItems(t, f.used)
		path := filepath.Join("testdata", f.name)
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) && os.Getenv("MNEMON_WRITE_TRACE_FIXTURES") == "1" {
			b = f.enc(items)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeTraceItems(b)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if !sameItems(got, items) {
			t.Fatalf("%s decodes to\n%#v\nwant\n%#v", f.name, got, items)
		}
	}
}

// sameItems compares items value for value: reflect.DeepEqual does not
// tell -0 from 0.
func sameItems(a, b TraceItems) bool {
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) && signs(a) == signs(b) && termSigns(a) == termSigns(b)
}

func termSigns(ts TraceItems) string {
	s := ""
	for _, t := range ts {
		for _, x := range t.Terms {
			s += fmt.Sprint(math.Signbit(x.Value))
		}
		for _, h := range t.Channels {
			s += fmt.Sprint(math.Signbit(h.Score))
		}
	}
	return s
}
