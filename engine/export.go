package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// ExportFormat is the version of the JSON lines export format.
const ExportFormat = 1

// Record is one line of an export: a header, then one row per line.
type Record struct {
	Record string `json:"record"` // header, memory, version, episode, admission, trace

	// Header fields.
	Format     int        `json:"format,omitempty"`
	Namespace  string     `json:"namespace,omitempty"`
	ExportedAt *time.Time `json:"exported_at,omitempty"`

	Memory    *memory.Memory    `json:"memory,omitempty"`
	Version   *memory.Version   `json:"version,omitempty"`
	Episode   *memory.Episode   `json:"episode,omitempty"`
	Admission *memory.Admission `json:"admission,omitempty"`
	Trace     *memory.Trace     `json:"trace,omitempty"`
}

// ExportStats counts what an export or import carried.
type ExportStats struct {
	Memories   int `json:"memories"`
	Versions   int `json:"versions"`
	Episodes   int `json:"episodes"`
	Admissions int `json:"admissions"`
	Traces     int `json:"traces"`
}

// Export writes a namespace as JSON lines: every memory, version (with its
// embedding), episode, admission and trace. Import reads it back losslessly.
func (e *Engine) Export(ctx context.Context, ns string, w io.Writer) (*ExportStats, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	e.traces.Flush()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	now := e.clock.Now()
	stats := &ExportStats{}
	if err := enc.Encode(Record{Record: "header", Format: ExportFormat, Namespace: ns, ExportedAt: &now}); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	scan := memory.ScanParams{Namespace: ns}
	if err := e.store.ScanMemories(ctx, scan, func(m *memory.Memory) error {
		stats.Memories++
		return enc.Encode(Record{Record: "memory", Memory: m})
	}); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := e.store.ScanEpisodes(ctx, scan, func(ep *memory.Episode) error {
		stats.Episodes++
		return enc.Encode(Record{Record: "episode", Episode: ep})
	}); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := e.store.ScanVersions(ctx, scan, func(v *memory.Version) error {
		stats.Versions++
		return enc.Encode(Record{Record: "version", Version: v})
	}); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	adms, err := e.store.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns})
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	for i := len(adms) - 1; i >= 0; i-- { // oldest first
		stats.Admissions++
		if err := enc.Encode(Record{Record: "admission", Admission: adms[i]}); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	traces, err := e.store.ListTraces(ctx, memory.ListTracesParams{Namespace: ns})
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	for i := len(traces) - 1; i >= 0; i-- {
		stats.Traces++
		if err := enc.Encode(Record{Record: "trace", Trace: traces[i]}); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return stats, nil
}

// Import reads an export into namespace ns (whatever namespace it was
// exported from) in one transaction: a bad line leaves nothing written.
func (e *Engine) Import(ctx context.Context, ns string, r io.Reader) (*ExportStats, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	var (
		mems  []*memory.Memory
		vers  []*memory.Version
		eps   []*memory.Episode
		adms  []*memory.Admission
		trs   []*memory.Trace
		stats ExportStats
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("import: line %d: %w", lineNo, memory.Invalidf("not a JSON record: %s", recordError(err)))
		}
		switch {
		case rec.Record == "header":
			if rec.Format > ExportFormat {
				return nil, fmt.Errorf("import: %w", memory.Invalidf("export format %d is newer than this mnemon reads (%d)", rec.Format, ExportFormat))
			}
		case rec.Record == "memory" && rec.Memory != nil:
			rec.Memory.Namespace = ns
			mems = append(mems, rec.Memory)
		case rec.Record == "version" && rec.Version != nil:
			rec.Version.Namespace = ns
			vers = append(vers, rec.Version)
		case rec.Record == "episode" && rec.Episode != nil:
			rec.Episode.Namespace = ns
			eps = append(eps, rec.Episode)
		case rec.Record == "admission" && rec.Admission != nil:
			rec.Admission.Namespace = ns
			adms = append(adms, rec.Admission)
		case rec.Record == "trace" && rec.Trace != nil:
			rec.Trace.Namespace = ns
			trs = append(trs, rec.Trace)
		default:
			return nil, fmt.Errorf("import: line %d: %w", lineNo, memory.Invalidf("unknown or empty record %q", rec.Record))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("import: line %d: %w", lineNo+1, err)
	}
	// Every version must decode before anything is written: a version the
	// index cannot read would leave the namespace unloadable.
	docs := make([]search.Doc, len(vers))
	for i, v := range vers {
		doc, err := e.docOf(v)
		if err != nil {
			return nil, fmt.Errorf("import: version %s: %w", v.ID, memory.Invalidf("unreadable embedding: %v", err))
		}
		docs[i] = doc
	}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer unlock()
	// An export is a namespace's whole history; merging two histories is
	// not an import, so the target must be empty.
	if have, err := e.store.Stats(ctx, memory.StatsParams{Namespace: ns}); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	} else if have.Episodes > 0 || have.Memories > 0 {
		return nil, fmt.Errorf("import: %w: namespace %q already holds %d memories and %d episodes; import into an empty namespace (--namespace NEW)", memory.ErrConflict, ns, have.Memories, have.Episodes)
	}
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		for _, m := range mems {
			if err := tx.CreateMemory(ctx, m); err != nil {
				return fmt.Errorf("memory %s: %w", m.ID, err)
			}
		}
		if len(eps) > 0 {
			if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps}); err != nil {
				return err
			}
		}
		for _, v := range vers {
			if err := tx.CreateVersion(ctx, v); err != nil {
				return fmt.Errorf("version %s: %w", v.ID, err)
			}
		}
		if len(adms) > 0 {
			if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms}); err != nil {
				return err
			}
		}
		for _, t := range trs {
			if err := tx.CreateTrace(ctx, t); err != nil {
				return fmt.Errorf("trace %s: %w", t.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	for i, v := range vers {
		st.put(v, docs[i], e.analyzer)
	}
	st.sortEpisodes()
	stats = ExportStats{Memories: len(mems), Versions: len(vers), Episodes: len(eps), Admissions: len(adms), Traces: len(trs)}
	return &stats, nil
}

// recordError says why a line is not a record in the terms of the export
// format, never the decoder's Go type names: services pass it to clients.
func recordError(err error) string {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntaxErr):
		return "invalid JSON: " + syntaxErr.Error()
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return "a record is a JSON object, not " + article(typeErr.Value)
	case errors.As(err, &typeErr):
		return "field " + typeErr.Field + " cannot be " + article(typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: "):
		return "malformed record"
	}
	return err.Error()
}

// article puts "a" or "an" before a JSON kind ("a number", "an object").
func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
