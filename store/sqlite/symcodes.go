package sqlite

import (
	"fmt"
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// Short stored forms (migration 0020). The columns below hold one of a few
// names in nearly every row — "builtin-glove64-sif-v1" alone was 22 bytes
// of each version — and no query's condition or index names them except
// through encodeSym or symLiteral, so they are stored as a one-character
// code and mapped back at the codec boundary:
//
//   - versions: kind, type, criticality, operation and the provenance names
//     (prov_extractor, prov_model, prov_prompt_version, prov_embedder,
//     prov_source);
//   - memories: kind;
//   - admissions: extractor; and reasons, a JSON array, as reasonList
//     followed by one byte per reason when every reason is in reasonNames.
//
// A stored value of one character below codeEscape is symNames[its byte];
// a value whose first byte is below 0x20 is stored after codeEscape, so
// every string still has exactly one stored form and reads back as it was
// written. Any other value is stored as it is.
//
// Both tables are part of the file format: a name keeps its code forever;
// new names go at the end (a store written by a newer mnemon with codes
// this one does not know fails to decode rather than misreads).
var symNames = [...]string{
	0x01: "builtin-glove64-sif-v1",
	0x02: "builtin-hash-v1",
	0x03: "note",
	0x04: "episode",
	0x05: "remember",
	0x06: "rules-en-v3",
	0x07: string(memory.TypeFact),
	0x08: string(memory.TypePreference),
	0x09: string(memory.TypeDecision),
	0x0a: string(memory.TypeConstraint),
	0x0b: string(memory.TypeGoal),
	0x0c: string(memory.TypeLesson),
	0x0d: string(memory.TypeProcedure),
	0x0e: string(memory.TypeSummary),
	0x0f: string(memory.TypeEvent),
	0x10: string(memory.CriticalityNormal),
	0x11: string(memory.CriticalityHigh),
	0x12: string(memory.CriticalityMustInclude),
	0x13: string(memory.OpAdd),
	0x14: string(memory.OpReinforce),
	0x15: string(memory.OpSupersede),
	0x16: string(memory.OpContest),
	0x17: string(memory.OpNoop),
	0x18: "procedures",
	0x19: "promotion",
	0x1a: "consolidate",
	0x1b: "forget",
	0x1c: string(memory.KindSemantic),
	0x1d: string(memory.KindEpisodic),
	0x1e: string(memory.KindProcedural),
}

// reasonNames are the admission reasons a reasons list may name by one
// byte (1..0x7f) after reasonList.
var reasonNames = [...]string{
	0x01: "no_rule_matched",
	0x02: "kept_as_note",
	0x03: "stands_in_for_episode",
	0x04: "episode",
	0x05: "extracted:rules-en-v3",
	0x06: "cue:correction",
	0x07: "correction",
	0x08: "newer_value",
	0x09: "same_value",
	0x0a: "duplicate_event",
	0x0b: "late_evidence",
	0x0c: "nothing_to_end",
	0x0d: "value_ended",
	0x0e: "history",
	0x0f: "slot_reopened",
	0x10: "out_of_order",
	0x11: "kept_as_history",
	0x12: "weak_evidence",
	0x13: "forgotten",
	0x14: "session_summary",
	0x15: "consolidated",
	0x16: "procedure_promoted",
	0x17: "procedure_failure",
	0x18: "procedure_stale",
	0x19: "duplicate_of",
	0x1a: "contested_resolved",
	0x1b: "expired_valid_to",
	0x1c: "usefulness_decay",
	0x1d: "usefulness_floor",
}

const (
	// codeEscape starts a stored value whose own first byte is below 0x20.
	codeEscape = 0x1f
	// reasonList starts a reasons column stored as reason codes.
	reasonList = 0x1e
)

var (
	symCodes    = codeIndex(symNames[:])
	reasonCodes = codeIndex(reasonNames[:])
)

func codeIndex(names []string) map[string]byte {
	m := make(map[string]byte, len(names))
	for i, n := range names {
		if n != "" {
			m[n] = byte(i)
		}
	}
	return m
}

// symStrings holds each code's stored form, so encoding allocates nothing.
var symStrings = func() [len(symNames)]string {
	var out [len(symNames)]string
	for i := range out {
		out[i] = string(rune(i))
	}
	return out
}()

// encodeSym returns the stored form of a symbol column's value.
func encodeSym(s string) string {
	if c, ok := symCodes[s]; ok {
		return symStrings[c]
	}
	if s != "" && s[0] < 0x20 {
		return string(rune(codeEscape)) + s
	}
	return s
}

// encodeSyms maps a filter's values as encodeSym stores them.
func encodeSyms[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = encodeSym(string(s))
	}
	return out
}

// decodeSym reverses encodeSym.
func decodeSym(s string) (string, error) {
	if s == "" || s[0] >= 0x20 {
		return s, nil
	}
	if s[0] == codeEscape {
		return s[1:], nil
	}
	if len(s) == 1 && int(s[0]) < len(symNames) && symNames[s[0]] != "" {
		return symNames[s[0]], nil
	}
	return "", fmt.Errorf("unknown stored code %q (written by a newer mnemon?)", s)
}

// code reads a symbol column stored by encodeSym.
func (d *decoder) code() string {
	s := d.sym()
	if d.err != nil || s == "" || s[0] >= 0x20 {
		return s
	}
	v, err := decodeSym(s)
	if err != nil {
		d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
	}
	return v
}

// reasons encodes an admission's reasons: reason codes when every one has
// one, JSON otherwise (nil is "null", empty "[]", as c.json writes them).
func (c *encoder) reasons(list []string) string {
	if len(list) == 0 {
		return c.json("reasons", list)
	}
	var b strings.Builder
	b.Grow(1 + len(list))
	b.WriteByte(reasonList)
	for _, r := range list {
		code, ok := reasonCodes[r]
		if !ok {
			return c.json("reasons", list)
		}
		b.WriteByte(code)
	}
	return b.String()
}

// reasons reads what encoder.reasons wrote, or the JSON of older rows.
func (d *decoder) reasons() []string {
	i := d.i
	s := d.str()
	if d.err != nil {
		return nil
	}
	if s == "" || s[0] != reasonList {
		if s == "null" {
			return nil
		}
		var out []string
		if err := decodeJSON(s, &out); err != nil {
			d.err = fmt.Errorf("decode column %q: %w", d.src.name(i), err)
		}
		return out
	}
	out := make([]string, 0, len(s)-1)
	for j := 1; j < len(s); j++ {
		c := s[j]
		if int(c) >= len(reasonNames) || reasonNames[c] == "" {
			d.err = fmt.Errorf("decode column %q: unknown reason code %d (written by a newer mnemon?)", d.src.name(i), c)
			return nil
		}
		out = append(out, reasonNames[c])
	}
	return out
}

// symLiteral is an SQL literal of name's stored form, for a query that
// names a symbol column's value.
func symLiteral(name string) string {
	s := encodeSym(name)
	if len(s) == 1 && s[0] < 0x20 {
		return fmt.Sprintf("char(%d)", s[0])
	}
	return sqlQuote(s)
}

// symSQL is an SQL expression giving encodeSym's stored form of column
// col, for the migration that rewrites rows written before it.
func symSQL(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, n := range symNames {
		if n != "" {
			fmt.Fprintf(&b, " WHEN %s THEN char(%d)", sqlQuote(n), i)
		}
	}
	fmt.Fprintf(&b, " WHEN '' THEN '' ELSE CASE WHEN unicode(%s) < 32 THEN char(%d) || %s ELSE %s END END", col, codeEscape, col, col)
	return b.String()
}

// reasonsSQL is an SQL expression giving encoder.reasons' stored form of
// the JSON column col: the codes when it is a non-empty array of strings
// that all have one, else col as it is.
func reasonsSQL(col string) string {
	var cases strings.Builder
	cases.WriteString("CASE r.value")
	for i, n := range reasonNames {
		if n != "" {
			fmt.Fprintf(&cases, " WHEN %s THEN char(%d)", sqlQuote(n), i)
		}
	}
	cases.WriteString(" END")
	return fmt.Sprintf(`CASE WHEN json_valid(%[1]s) AND json_type(%[1]s) = 'array' AND json_array_length(%[1]s) > 0
	AND NOT EXISTS (SELECT 1 FROM json_each(%[1]s) r WHERE r.type <> 'text' OR (%[2]s) IS NULL)
	THEN char(%[3]d) || (SELECT group_concat(%[2]s, '' ORDER BY r.key) FROM json_each(%[1]s) r)
	ELSE %[1]s END`, col, cases.String(), reasonList)
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// episodeKindNames are the episode kinds stored as a one-character code
// (migration 0021), by the same rules as symNames (codeEscape for a value
// whose first byte is below 0x20). task_result keeps its text: the
// partial indexes episodes_task_results* and the task-result queries name
// it. Part of the file format, as symNames.
var episodeKindNames = [...]string{
	0x01: string(memory.EpisodeUserMessage),
	0x02: string(memory.EpisodeAgentMessage),
	0x03: string(memory.EpisodeToolCall),
	0x04: string(memory.EpisodeToolResult),
	0x05: string(memory.EpisodeUserFeedback),
	0x06: string(memory.EpisodeObservation),
}

var (
	episodeKindCodes   = codeIndex(episodeKindNames[:])
	episodeKindStrings = func() [len(episodeKindNames)]string {
		var out [len(episodeKindNames)]string
		for i := range out {
			out[i] = string(rune(i))
		}
		return out
	}()
)

// encodeEpisodeKind returns the stored form of an episode's kind.
func encodeEpisodeKind(s string) string {
	if c, ok := episodeKindCodes[s]; ok {
		return episodeKindStrings[c]
	}
	if s != "" && s[0] < 0x20 {
		return string(rune(codeEscape)) + s
	}
	return s
}

// episodeKind reads an episode's kind stored by encodeEpisodeKind (or as
// plain text, as rows before migration 0021 hold it).
func (d *decoder) episodeKind() string {
	s := d.sym()
	if d.err != nil || s == "" || s[0] >= 0x20 {
		return s
	}
	if s[0] == codeEscape {
		return s[1:]
	}
	if len(s) == 1 && int(s[0]) < len(episodeKindNames) && episodeKindNames[s[0]] != "" {
		return episodeKindNames[s[0]]
	}
	d.err = fmt.Errorf("decode column %q: unknown stored code %q (written by a newer mnemon?)", d.src.name(d.i-1), s)
	return ""
}

// episodeKindSQL is an SQL expression giving encodeEpisodeKind's stored
// form of column col, for the migration that rewrites older rows.
func episodeKindSQL(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, n := range episodeKindNames {
		if n != "" {
			fmt.Fprintf(&b, " WHEN %s THEN char(%d)", sqlQuote(n), i)
		}
	}
	fmt.Fprintf(&b, " WHEN '' THEN '' ELSE CASE WHEN unicode(%s) < 32 THEN char(%d) || %s ELSE %s END END", col, codeEscape, col, col)
	return b.String()
}

// decisionNames are the admission decisions stored as a one-character code
// (migration 0027), by the same rules as symNames (codeEscape for a value
// whose first byte is below 0x20). Part of the file format, as symNames.
// An admission's operation is a version's and takes symNames' codes.
var decisionNames = [...]string{
	0x01: string(memory.AdmitAccept),
	0x02: string(memory.AdmitDefer),
	0x03: string(memory.AdmitReject),
	0x04: string(memory.AdmitQuarantine),
}

// speakerNames are the usual episode speakers, stored as a one-character
// code (migration 0027) by the same rules; any other speaker is stored as
// it is. Part of the file format, as symNames.
var speakerNames = [...]string{
	0x01: "user",
	0x02: "assistant",
	0x03: "agent",
	0x04: "system",
	0x05: "tool",
}

var (
	decisions = newCodeTable(decisionNames[:])
	speakers  = newCodeTable(speakerNames[:])
)

// codeTable is one column's own names stored as one-character codes by
// symNames' rules: a stored value of one character below codeEscape is
// names[its byte], a value whose first byte is below 0x20 is stored after
// codeEscape, any other value as it is.
type codeTable struct {
	names []string
	codes map[string]byte
	strs  []string // each code's stored form, so encoding allocates nothing
}

func newCodeTable(names []string) codeTable {
	t := codeTable{names: names, codes: codeIndex(names), strs: make([]string, len(names))}
	for i := range t.strs {
		t.strs[i] = string(rune(i))
	}
	return t
}

// encode returns the stored form of s.
func (t codeTable) encode(s string) string {
	if c, ok := t.codes[s]; ok {
		return t.strs[c]
	}
	if s != "" && s[0] < 0x20 {
		return string(rune(codeEscape)) + s
	}
	return s
}

// decode reverses encode; plain text (rows before the codes) reads as it is.
func (t codeTable) decode(s string) (string, error) {
	if s == "" || s[0] >= 0x20 {
		return s, nil
	}
	if s[0] == codeEscape {
		return s[1:], nil
	}
	if len(s) == 1 && int(s[0]) < len(t.names) && t.names[s[0]] != "" {
		return t.names[s[0]], nil
	}
	return "", fmt.Errorf("unknown stored code %q (written by a newer mnemon?)", s)
}

// literal is an SQL literal of name's stored form.
func (t codeTable) literal(name string) string {
	s := t.encode(name)
	if len(s) == 1 && s[0] < 0x20 {
		return fmt.Sprintf("char(%d)", s[0])
	}
	return sqlQuote(s)
}

// sql is an SQL expression giving encode's stored form of column col, for
// the migration that rewrites older rows.
func (t codeTable) sql(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, n := range t.names {
		if n != "" {
			fmt.Fprintf(&b, " WHEN %s THEN char(%d)", sqlQuote(n), i)
		}
	}
	fmt.Fprintf(&b, " WHEN '' THEN '' ELSE CASE WHEN unicode(%s) < 32 THEN char(%d) || %s ELSE %s END END", col, codeEscape, col, col)
	return b.String()
}

// coded reads a column stored by t.encode.
func (d *decoder) coded(t codeTable) string {
	s := d.sym()
	if d.err != nil || s == "" || s[0] >= 0x20 {
		return s
	}
	v, err := t.decode(s)
	if err != nil {
		d.err = fmt.Errorf("decode column %q: %w", d.src.name(d.i-1), err)
	}
	return v
}
