package memory

import (
	"encoding/json"
	"slices"
	"strings"
)

// NamedChannelHit is one channel's opinion of a candidate, with the
// channel's name.
type NamedChannelHit struct {
	Channel string
	ChannelHit
}

// ChannelHits are the channels that found a candidate, in the order they
// were recorded. Every retrieval records one set per candidate, so they are
// a slice rather than a map (a few words instead of a hash table each); in
// JSON they are an object keyed by channel: {"lexical": {"rank": 1, ...}}.
type ChannelHits []NamedChannelHit

// Get returns the named channel's hit.
func (hs ChannelHits) Get(channel string) (ChannelHit, bool) {
	for _, h := range hs {
		if h.Channel == channel {
			return h.ChannelHit, true
		}
	}
	return ChannelHit{}, false
}

// Map returns the hits keyed by channel.
func (hs ChannelHits) Map() map[string]ChannelHit {
	if hs == nil {
		return nil
	}
	m := make(map[string]ChannelHit, len(hs))
	for _, h := range hs {
		m[h.Channel] = h.ChannelHit
	}
	return m
}

// MarshalJSON writes the hits as an object keyed by channel.
func (hs ChannelHits) MarshalJSON() ([]byte, error) {
	return hs.appendJSON(nil), nil
}

func (hs ChannelHits) appendJSON(b []byte) []byte {
	if hs == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, j := range sortedOrder(len(hs), func(i int) string { return hs[i].Channel }) {
		h := hs[j]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, h.Channel)
		b = append(b, `:{"rank":`...)
		b = appendInt(b, h.Rank)
		b = append(b, `,"score":`...)
		b = appendFloat(b, h.Score)
		b = append(b, '}')
	}
	return append(b, '}')
}

// UnmarshalJSON reads an object keyed by channel, in channel name order.
func (hs *ChannelHits) UnmarshalJSON(b []byte) error {
	var m map[string]ChannelHit
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*hs = nil
		return nil
	}
	out := make(ChannelHits, 0, len(m))
	for k, v := range m {
		out = append(out, NamedChannelHit{Channel: k, ChannelHit: v})
	}
	slices.SortFunc(out, func(a, b NamedChannelHit) int { return strings.Compare(a.Channel, b.Channel) })
	*hs = out
	return nil
}

// Term is one named utility term of a ranking.
type Term struct {
	Name  string
	Value float64
}

// Terms are the utility terms added to a candidate's fused score, in the
// order they were applied; in JSON an object keyed by name. A slice for the
// same reason as ChannelHits.
type Terms []Term

// Get returns the named term's value.
func (ts Terms) Get(name string) (float64, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t.Value, true
		}
	}
	return 0, false
}

// Sum adds every term.
func (ts Terms) Sum() float64 {
	var s float64
	for _, t := range ts {
		s += t.Value
	}
	return s
}

// Map returns the terms keyed by name.
func (ts Terms) Map() map[string]float64 {
	if ts == nil {
		return nil
	}
	m := make(map[string]float64, len(ts))
	for _, t := range ts {
		m[t.Name] = t.Value
	}
	return m
}

// MarshalJSON writes the terms as an object keyed by name.
func (ts Terms) MarshalJSON() ([]byte, error) {
	return ts.appendJSON(nil), nil
}

func (ts Terms) appendJSON(b []byte) []byte {
	if ts == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, j := range sortedOrder(len(ts), func(i int) string { return ts[i].Name }) {
		t := ts[j]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t.Name)
		b = append(b, ':')
		b = appendFloat(b, t.Value)
	}
	return append(b, '}')
}

// UnmarshalJSON reads an object keyed by name, in name order.
func (ts *Terms) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*ts = nil
		return nil
	}
	out := make(Terms, 0, len(m))
	for k, v := range m {
		out = append(out, Term{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b Term) int { return strings.Compare(a.Name, b.Name) })
	*ts = out
	return nil
}

// sortedOrder returns the indexes 0..n-1 ordered by key, so JSON objects
// are written with sorted keys (as encoding/json writes maps) whatever order
// the entries were recorded in.
func sortedOrder(n int, key func(int) string) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(key(a), key(b)) })
	return idx
}
