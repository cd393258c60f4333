// Package locomo reads the LoCoMo long-conversation benchmark (Maharana et
// al., ACL 2024) and scores retrieval on it: does a system, given a
// question alone, return the conversation turns the question's answer rests
// on?
//
// The data is not shipped with mnemon (its licence forbids it); the loader
// reads the JSON file the benchmark publishes, defects included (see Load).
package locomo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Category numbers as the data spells them (not in the paper's order).
const (
	MultiHop    = 1
	Temporal    = 2
	OpenDomain  = 3
	SingleHop   = 4
	Adversarial = 5 // unanswerable: the right behaviour is to abstain
)

// CategoryName names a category number.
func CategoryName(c int) string {
	switch c {
	case MultiHop:
		return "multi-hop"
	case Temporal:
		return "temporal"
	case OpenDomain:
		return "open-domain"
	case SingleHop:
		return "single-hop"
	case Adversarial:
		return "adversarial"
	}
	return "category " + strconv.Itoa(c)
}

// Sample is one conversation with its questions.
type Sample struct {
	ID                 string
	SpeakerA, SpeakerB string
	Sessions           []Session // by session number
	Questions          []Question
}

// Session is one dated sitting of the conversation.
type Session struct {
	N     int
	Time  time.Time // one timestamp per session; turns have none
	Turns []Turn
}

// Turn is one utterance.
type Turn struct {
	ID      string // "D<session>:<turn>", 1-based, canonical (no leading zeros)
	Speaker string
	// Text is what was said; a shared image adds its caption as
	// " [shares <caption>]", since the caption is all a text system sees.
	Text string
}

// Question is one benchmark question.
type Question struct {
	Text     string
	Answer   any // a string, sometimes a JSON number; absent in category 5
	Category int
	// Evidence lists the turns the answer rests on, canonical and
	// deduplicated, in citation order. Malformed citations are read as
	// the README says ("D8:6; D9:17" is two turns, "D30:05" is D30:5,
	// "D:11:26" and "D" are nothing); an id may still name a turn the
	// conversation lacks (see Sample.HasTurn).
	Evidence []string
}

// SessionOf returns the session number of a turn id, or 0.
func SessionOf(turnID string) int {
	s, _, ok := strings.Cut(strings.TrimPrefix(turnID, "D"), ":")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(s)
	return n
}

// HasTurn reports whether the conversation has the turn.
func (s *Sample) HasTurn(id string) bool {
	n := SessionOf(id)
	i := sort.Search(len(s.Sessions), func(i int) bool { return s.Sessions[i].N >= n })
	if i == len(s.Sessions) || s.Sessions[i].N != n {
		return false
	}
	for _, t := range s.Sessions[i].Turns {
		if t.ID == id {
			return true
		}
	}
	return false
}

// Turns returns how many turns the conversation has.
func (s *Sample) Turns() int {
	n := 0
	for _, ss := range s.Sessions {
		n += len(ss.Turns)
	}
	return n
}

// Load reads a LoCoMo JSON file.
func Load(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	samples, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return samples, nil
}

// The JSON shapes, as published.
type (
	rawSample struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []rawQA                    `json:"qa"`
	}
	rawQA struct {
		Question string   `json:"question"`
		Answer   any      `json:"answer"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	}
	rawTurn struct {
		Speaker string `json:"speaker"`
		DiaID   string `json:"dia_id"`
		Text    string `json:"text"`
		Caption string `json:"blip_caption"`
	}
)

var (
	sessionKey = regexp.MustCompile(`^session_(\d+)$`)
	turnID     = regexp.MustCompile(`D(\d+):(\d+)`)
)

// timeLayout reads "1:56 pm on 8 May, 2023". The data names no zone: UTC.
const timeLayout = "3:04 pm on 2 January, 2006"

// Decode reads LoCoMo samples from r. Date keys without a session are
// ignored; a session without a readable date is an error.
func Decode(r io.Reader) ([]Sample, error) {
	var raws []rawSample
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raws); err != nil {
		return nil, fmt.Errorf("decode LoCoMo JSON: %w", err)
	}
	out := make([]Sample, 0, len(raws))
	for _, rs := range raws {
		s, err := decodeSample(rs)
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", rs.SampleID, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func decodeSample(rs rawSample) (Sample, error) {
	s := Sample{ID: rs.SampleID}
	if s.ID == "" {
		return s, fmt.Errorf("no sample_id")
	}
	str := func(key string) (string, error) {
		var v string
		raw, ok := rs.Conversation[key]
		if !ok {
			return "", fmt.Errorf("conversation has no %s", key)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return v, nil
	}
	var err error
	if s.SpeakerA, err = str("speaker_a"); err != nil {
		return s, err
	}
	if s.SpeakerB, err = str("speaker_b"); err != nil {
		return s, err
	}
	for key, raw := range rs.Conversation {
		m := sessionKey.FindStringSubmatch(key)
		if m == nil {
			continue // speakers, and date keys (with or without a session)
		}
		n, _ := strconv.Atoi(m[1])
		var turns []rawTurn
		if err := json.Unmarshal(raw, &turns); err != nil {
			return s, fmt.Errorf("%s: %w", key, err)
		}
		when, err := str(key + "_date_time")
		if err != nil {
			return s, err
		}
		t, err := time.Parse(timeLayout, strings.TrimSpace(when))
		if err != nil {
			return s, fmt.Errorf("%s_date_time %q: want a time like \"1:56 pm on 8 May, 2023\"", key, when)
		}
		ss := Session{N: n, Time: t.UTC(), Turns: make([]Turn, 0, len(turns))}
		for i, rt := range turns {
			id := canonical(rt.DiaID)
			if id == "" {
				return s, fmt.Errorf("%s turn %d: dia_id %q is not D<session>:<turn>", key, i+1, rt.DiaID)
			}
			text := rt.Text
			if rt.Caption != "" {
				text += " [shares " + rt.Caption + "]"
			}
			ss.Turns = append(ss.Turns, Turn{ID: id, Speaker: rt.Speaker, Text: text})
		}
		s.Sessions = append(s.Sessions, ss)
	}
	sort.Slice(s.Sessions, func(i, j int) bool { return s.Sessions[i].N < s.Sessions[j].N })
	for _, q := range rs.QA {
		s.Questions = append(s.Questions, Question{
			Text: q.Question, Answer: q.Answer, Category: q.Category, Evidence: evidenceIDs(q.Evidence),
		})
	}
	return s, nil
}

// canonical returns the first D<s>:<t> id in raw, without leading zeros, or "".
func canonical(raw string) string {
	m := turnID.FindStringSubmatch(raw)
	if m == nil {
		return ""
	}
	return canonicalOf(m)
}

func canonicalOf(m []string) string {
	s, _ := strconv.Atoi(m[1])
	t, _ := strconv.Atoi(m[2])
	return fmt.Sprintf("D%d:%d", s, t)
}

// evidenceIDs extracts every turn id cited, deduplicated, in order.
func evidenceIDs(raw []string) []string {
	var out []string
	for _, e := range raw {
		for _, m := range turnID.FindAllStringSubmatch(e, -1) {
			id := canonicalOf(m)
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}
