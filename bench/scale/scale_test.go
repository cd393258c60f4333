package scale

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestConversationsDeterministic(t *testing.T) {
	gen := func(seed uint64) []Session {
		c := NewConversations(seed, 8, t0)
		var out []Session
		for range 30 {
			out = append(out, c.Next())
		}
		return out
	}
	a, b := gen(7), gen(7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different conversations")
	}
	if reflect.DeepEqual(a, gen(8)) {
		t.Fatal("different seeds gave the same conversations")
	}
	seen := map[string]int{}
	for i, s := range a {
		if len(s.Turns) != 8 || s.ID != fmt.Sprintf("session-%d", i+1) {
			t.Fatalf("session %d: %d turns", i, len(s.Turns))
		}
		for j, turn := range s.Turns {
			if want := []string{"user", "assistant"}[j%2]; turn.Speaker != want || strings.TrimSpace(turn.Text) == "" {
				t.Fatalf("session %d turn %d: %+v", i, j, turn)
			}
			if j > 0 && !turn.At.After(s.Turns[j-1].At) {
				t.Fatalf("session %d: turn %d is not after turn %d", i, j, j-1)
			}
			if turn.Speaker == "user" {
				seen[turn.Text]++
			}
		}
	}
	// Users come back to standing facts: that is what consolidation
	// would fold away.
	repeated := 0
	for _, n := range seen {
		if n > 1 {
			repeated++
		}
	}
	if repeated == 0 {
		t.Fatal("no user statement recurs across 30 sessions")
	}
	if q1, q2 := Queries(3, 50), Queries(3, 50); !reflect.DeepEqual(q1, q2) || len(q1) != 50 {
		t.Fatal("queries are not deterministic")
	}
}

func TestWriteSVG(t *testing.T) {
	p := Plot{Title: "latency <vs> size", XLabel: "memories", YLabel: "ms", LogX: true, Series: []Series{
		{Name: "p50", X: []float64{1000, 10000, 100000}, Y: []float64{0.4, 0.6, 1.5}},
		{Name: "p95 & more", X: []float64{1000, 10000, 100000}, Y: []float64{1.8, 2.1, 5.9}},
	}}
	var b bytes.Buffer
	if err := WriteSVG(&b, p); err != nil {
		t.Fatal(err)
	}
	// Valid XML throughout, with one group and polyline per series and
	// the title, labels and ticks as text.
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	var groups []string
	var texts []string
	polylines := 0
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("invalid XML: %v\n%s", err, b.String())
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "g":
				for _, a := range el.Attr {
					if a.Name.Local == "data-name" {
						groups = append(groups, a.Value)
					}
				}
			case "polyline":
				polylines++
			case "text":
				inText = true
			}
		case xml.EndElement:
			inText = inText && el.Name.Local != "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		}
	}
	if !reflect.DeepEqual(groups, []string{"p50", "p95 & more"}) || polylines != 2 {
		t.Fatalf("series groups %q, %d polylines", groups, polylines)
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"latency <vs> size", "memories", "ms", "1k", "10k", "100k", "p95 & more"} {
		if !strings.Contains(all, want) {
			t.Errorf("no text %q in %q", want, all)
		}
	}

	if err := WriteSVG(io.Discard, Plot{Title: "empty"}); err == nil {
		t.Error("a plot without points was drawn")
	}
	if err := WriteSVG(io.Discard, Plot{LogX: true, Series: []Series{{X: []float64{0}, Y: []float64{1}}}}); err == nil {
		t.Error("x = 0 was drawn on a log scale")
	}
}

func TestAxisTicks(t *testing.T) {
	lin := newAxis([]float64{0, 5.92}, false)
	if lin.lo != 0 || lin.hi < 5.92 || len(lin.ticks) < 3 {
		t.Fatalf("linear axis %+v", lin)
	}
	log := newAxis([]float64{50, 1000}, true)
	if want := []float64{10, 20, 50, 100, 200, 500, 1000}; !reflect.DeepEqual(log.ticks, want) {
		t.Fatalf("log ticks %v, want %v", log.ticks, want)
	}
	for v, want := range map[float64]string{1000: "1k", 100000: "100k", 1e6: "1M", 0.30000000000000004: "0.3", 2.5: "2.5"} {
		if got := label(v); got != want {
			t.Errorf("label(%v) = %q, want %q", v, got, want)
		}
	}
}

// testOpen wires an engine as the CLI does.
func testOpen(ctx context.Context, path string, cfg engine.Config) (*engine.Engine, func() error, error) {
	st, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		return nil, nil, err
	}
	cfg.Store = st
	eng, err := engine.New(cfg)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return eng, func() error { eng.Close(); return st.Close() }, nil
}

// TestRunMedians checks --runs: two runs, one report of per-point medians
// with the seed-fixed counts intact.
func TestRunMedians(t *testing.T) {
	rep, err := Run(context.Background(), Options{Sizes: []int{100}, Sessions: []int{2}, Turns: 2, Queries: 5, Seed: 1, Runs: 2, Dir: t.TempDir(), Open: testOpen})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 2 || len(rep.Sizes) != 1 || rep.Sizes[0].Indexed != 100 || rep.Sizes[0].Retrieve.P50 <= 0 ||
		len(rep.Sessions) != 2 || len(rep.Sessions[0].Points) != 1 || rep.Sessions[0].Points[0].Turns != 4 || len(rep.Sessions[1].Points) != 1 {
		t.Fatalf("report: %+v", rep)
	}
	var md bytes.Buffer
	rep.Markdown(&md)
	if !strings.Contains(md.String(), "median over 2 runs") {
		t.Fatalf("markdown:\n%s", md.String())
	}
}

// TestRun runs both arms at toy sizes and checks the report holds
// together: sizes grown as asked, both session arms measured, and a plot
// per curve.
func TestRun(t *testing.T) {
	rep, err := Run(context.Background(), Options{Sizes: []int{100, 400}, Sessions: []int{2, 4}, Turns: 4, Queries: 20, Seed: 1, Batch: 64, Dir: t.TempDir(), Open: testOpen, DataBytes: sqlite.DataBytes, TraceBytes: sqlite.TraceBytes})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sizes) != 2 || rep.Sizes[1].Indexed != 400 || rep.Sizes[1].Statements != 200 || rep.Sizes[1].DBBytes+rep.Sizes[1].WALBytes == 0 {
		t.Fatalf("sizes: %+v", rep.Sizes)
	}
	if len(rep.Sessions) != 2 || !rep.Sessions[0].Available || len(rep.Sessions[0].Points) != 2 || rep.Sessions[0].Points[1].Turns != 16 {
		t.Fatalf("sessions: %+v", rep.Sessions)
	}
	if a := rep.Sessions[1]; !a.Available || len(a.Points) != 2 || a.Points[1].Turns != 16 || a.Note != "" {
		t.Fatalf("consolidation arm: %+v", a)
	}
	// The data held is measured, grows with what is stored, and is what
	// the files hold at most (the WAL's and the file's high-water marks
	// are not data).
	for _, a := range rep.Sessions {
		p0, p1 := a.Points[0], a.Points[1]
		if p0.DataBytes <= 0 || p1.DataBytes <= p0.DataBytes || p1.DataBytes > p1.StorageBytes() {
			t.Fatalf("%s: data held %d then %d (files %d)", a.Name, p0.DataBytes, p1.DataBytes, p1.StorageBytes())
		}
		// The bench's own retrievals wrote traces; the target judges the
		// rest.
		if p1.TraceBytes <= 0 || p1.TraceBytes >= p1.DataBytes || p1.HeldBytes() != p1.DataBytes-p1.TraceBytes {
			t.Fatalf("%s: traces %d of %d held", a.Name, p1.TraceBytes, p1.DataBytes)
		}
	}
	if st := rep.Targets[len(rep.Targets)-1]; st.Status != "not measured" {
		t.Fatalf("storage target at toy sizes: %+v", st)
	}
	if n := len(rep.Plots()); n != 4 {
		t.Fatalf("%d plots", n)
	}
	if series := rep.Plots()["scale-storage-sessions.svg"].Series; len(series) != 6 {
		t.Fatalf("the sessions plot has %d series, want db, db + WAL and data held for both arms", len(series))
	}
	for name, p := range rep.Plots() {
		if err := WriteSVG(io.Discard, p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var md bytes.Buffer
	rep.Markdown(&md)
	if !strings.Contains(md.String(), "with consolidation") || !strings.Contains(md.String(), "| data held |") {
		t.Fatalf("markdown:\n%s", md.String())
	}
}

// TestStorageTarget: the storage target is judged on the data held when it
// was measured (files' high-water marks are not growth), else on the
// files, and says which.
func TestStorageTarget(t *testing.T) {
	for _, tc := range []struct {
		name        string
		at200, at1k Resources
		status      string
		says        string
	}{
		{"data held, flat", Resources{DBBytes: 10 << 20, WALBytes: 90 << 20, DataBytes: 10 << 20}, Resources{DBBytes: 12 << 20, WALBytes: 1 << 20, DataBytes: 10.5 * (1 << 20)}, "met", "+5.0 % (data held"},
		{"data held, growing", Resources{DataBytes: 10 << 20}, Resources{DataBytes: 20 << 20}, "missed", "+100.0 % (data held"},
		{"files only", Resources{DBBytes: 10 << 20}, Resources{DBBytes: 11 << 20}, "met", "+10.0 % (database + WAL"},
		{"traces aside", Resources{DataBytes: 20 << 20, TraceBytes: 10 << 20}, Resources{DataBytes: 15 << 20, TraceBytes: 4 << 20}, "met", "+10.0 % (data held less retrieval traces 10.0 MiB to 11.0 MiB"},
	} {
		rep := &Report{Sessions: []SessionArm{{Name: "with consolidation", Available: true, Points: []SessionPoint{
			{Sessions: 200, Resources: tc.at200}, {Sessions: 1000, Resources: tc.at1k},
		}}}}
		rep.ScoreTargets()
		st := rep.Targets[len(rep.Targets)-1]
		if st.Status != tc.status || !strings.Contains(st.Measured, tc.says) {
			t.Errorf("%s: %+v", tc.name, st)
		}
	}
}
