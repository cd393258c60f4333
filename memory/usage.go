package memory

import (
	"encoding/json"
	"fmt"
)

// traceDiagnostics is the stored form of a trace's Notes and Models (both
// stores keep it as one nullable JSON text column).
type traceDiagnostics struct {
	Notes  []string     `json:"notes,omitempty"`
	Models []ModelUsage `json:"models,omitempty"`
}

// EncodeDiagnostics returns the JSON a store keeps of t's Notes and
// Models, and false when t has neither: the store then writes NULL, so a
// retrieval that called no model and took its usual path adds nothing to
// its row.
func (t *Trace) EncodeDiagnostics() (string, bool) {
	if len(t.Notes) == 0 && len(t.Models) == 0 {
		return "", false
	}
	b, err := json.Marshal(traceDiagnostics{Notes: t.Notes, Models: t.Models})
	if err != nil { // strings and numbers: cannot fail
		panic(err)
	}
	return string(b), true
}

// DecodeDiagnostics sets t's Notes and Models from what
// EncodeDiagnostics returned ("" for a NULL column: neither).
func (t *Trace) DecodeDiagnostics(s string) error {
	if s == "" {
		return nil
	}
	var d traceDiagnostics
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return fmt.Errorf("decode trace diagnostics: %w", err)
	}
	t.Notes, t.Models = d.Notes, d.Models
	return nil
}

// EncodeModels returns the JSON a store keeps of an admission's Models,
// and false when there are none (the column is then NULL).
func EncodeModels(ms []ModelUsage) (string, bool) {
	if len(ms) == 0 {
		return "", false
	}
	b, err := json.Marshal(ms)
	if err != nil {
		panic(err)
	}
	return string(b), true
}

// DecodeModels reads what EncodeModels returned ("" for NULL: nil).
func DecodeModels(s string) ([]ModelUsage, error) {
	if s == "" {
		return nil, nil
	}
	var ms []ModelUsage
	if err := json.Unmarshal([]byte(s), &ms); err != nil {
		return nil, fmt.Errorf("decode model usage: %w", err)
	}
	return ms, nil
}
