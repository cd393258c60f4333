package locomo

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func loadTiny(t *testing.T) []Sample {
	t.Helper()
	samples, err := Load("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	return samples
}

func TestLoad(t *testing.T) {
	t.Parallel()
	samples := loadTiny(t)
	if len(samples) != 1 {
		t.Fatalf("%d samples", len(samples))
	}
	s := samples[0]
	if s.ID != "tiny-1" || s.SpeakerA != "Ada" || s.SpeakerB != "Ben" {
		t.Errorf("sample header: %+v", s)
	}
	// session_3 has a date but no turns key: ignored.
	if len(s.Sessions) != 2 || s.Turns() != 7 {
		t.Fatalf("sessions %d, turns %d; want 2 and 7", len(s.Sessions), s.Turns())
	}
	if want := time.Date(2024, 3, 3, 9, 5, 0, 0, time.UTC); !s.Sessions[0].Time.Equal(want) {
		t.Errorf("session 1 at %v, want %v", s.Sessions[0].Time, want)
	}
	if want := time.Date(2024, 3, 10, 18, 40, 0, 0, time.UTC); !s.Sessions[1].Time.Equal(want) {
		t.Errorf("session 2 at %v, want %v", s.Sessions[1].Time, want)
	}
	if got := s.Sessions[0].Turns[2].Text; !strings.HasSuffix(got, " [shares a photo of a small blue sailboat on a trailer]") {
		t.Errorf("image turn text %q lacks its caption", got)
	}
	if got := Content(s.Sessions[1].Turns[0]); !strings.HasPrefix(got, "Ben: My sourdough") {
		t.Errorf("content %q", got)
	}
}

func TestQuestions(t *testing.T) {
	t.Parallel()
	s := loadTiny(t)[0]
	tests := []struct {
		q        int
		category int
		answer   any
		evidence []string
		gold     []string
	}{
		{0, SingleHop, "the old sailboat", []string{"D1:1"}, []string{"D1:1"}},
		{2, MultiHop, "three months; the lake", []string{"D1:3", "D2:2"}, []string{"D1:3", "D2:2"}}, // "D1:3; D2:2" is two
		{3, Temporal, float64(2024), []string{"D1:4"}, []string{"D1:4"}},                            // a number; D1:04 is D1:4
		{4, Adversarial, nil, []string{"D1:2"}, []string{"D1:2"}},
		{5, OpenDomain, "nothing said", nil, nil},  // no evidence
		{6, OpenDomain, "", []string{"D9:1"}, nil}, // D:11:26 is malformed, D9:1 is missing
	}
	for _, tt := range tests {
		q := s.Questions[tt.q]
		if q.Category != tt.category || q.Answer != tt.answer {
			t.Errorf("question %d: category %d answer %#v; want %d %#v", tt.q, q.Category, q.Answer, tt.category, tt.answer)
		}
		if !slices.Equal(q.Evidence, tt.evidence) {
			t.Errorf("question %d: evidence %q, want %q", tt.q, q.Evidence, tt.evidence)
		}
		if got := Gold(&s, q); !slices.Equal(got, tt.gold) {
			t.Errorf("question %d: gold %q, want %q", tt.q, got, tt.gold)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json, want string
	}{
		{"not a list", `{}`, "decode LoCoMo JSON"},
		{"no id", `[{"conversation":{}}]`, "no sample_id"},
		{"no speakers", `[{"sample_id":"x","conversation":{}}]`, "speaker_a"},
		{"session without date", `[{"sample_id":"x","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[]}}]`, "session_1_date_time"},
		{"bad date", `[{"sample_id":"x","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[],"session_1_date_time":"yesterday"}}]`, "want a time like"},
		{"bad dia_id", `[{"sample_id":"x","conversation":{"speaker_a":"A","speaker_b":"B","session_1":[{"speaker":"A","dia_id":"x","text":"hi"}],"session_1_date_time":"1:56 pm on 8 May, 2023"}}]`, "dia_id"},
	}
	for _, tt := range tests {
		_, err := Decode(strings.NewReader(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestSessionOf(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]int{"D1:3": 1, "D30:5": 30, "x": 0, "D:1": 0} {
		if got := SessionOf(id); got != want {
			t.Errorf("SessionOf(%q) = %d, want %d", id, got, want)
		}
	}
}
