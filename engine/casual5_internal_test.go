package engine

import "testing"

// A limit on food binds a task about food or a meal, not any task; a
// question after the user's rules still reaches it, and a limit on
// something else (a time, an airline) is never out of place.
func TestLimitOutOfPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query, key, content string
		want                bool
	}{
		{"book me a hotel for the offsite", "allergic_to:shellfish", "The user is allergic to shellfish.", true},
		{"book me a hotel for the offsite", "diet", "The user is keto.", true},
		{"book me a hotel for the offsite", "", "no cilantro ever, it tastes like soap", true},
		{"book me a hotel for the offsite", "constraint:schedule_before_9am", "The user set a rule: never schedule anything before 9am.", false},
		{"order me dinner tonight", "allergic_to:shellfish", "The user is allergic to shellfish.", false},
		{"find a restaurant for lunch", "", "no cilantro ever, it tastes like soap", false},
		{"anything I can't eat?", "allergic_to:shellfish", "The user is allergic to shellfish.", false},
		{"where do I live?", "allergic_to:shellfish", "The user is allergic to shellfish.", false},
	} {
		q := readQuery(tc.query, false)
		if got := q.limitOutOfPlace(tc.key, tc.content); got != tc.want {
			t.Errorf("%q, %q: limitOutOfPlace = %v, want %v", tc.query, tc.content, got, tc.want)
		}
	}
}

// A relation's name fact answers a question about a name only.
func TestAsksWhatCalled(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"what's my daughter's name?":       true,
		"what's my son called?":            true,
		"who is my manager?":               true,
		"what does my sister do for work?": false,
		"where is Oona working?":           false,
	} {
		if got := asksWhatCalled(q); got != want {
			t.Errorf("asksWhatCalled(%q) = %v, want %v", q, got, want)
		}
	}
	for key, want := range map[string]bool{"name": true, "name:theo": true, "name_of:cat": false, "works_at": false} {
		if got := relationNameKey(key); got != want {
			t.Errorf("relationNameKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// A phrasal verb is read as its sense before the search channels see the
// question: "work out" matches no employer.
func TestTopicReadsPhrasalVerbs(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"where do I work out?":           "where do I workout?",
		"where do I work out these days": "where do I workout  ",
		"where do I work?":               "where do I work?",
	} {
		if got := topicOf(q); got != want {
			t.Errorf("topicOf(%q) = %q, want %q", q, got, want)
		}
	}
}

// The "old" of "how old" is no topic, and "how old" asks for an age, not
// an earlier value; "how long" keeps its adjective.
func TestHowMeasure(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"how old are the twins?":      "how are the twins?",
		"How long is the drive?":      "How long is the drive?",
		"is my old bike still there?": "is my old bike still there?",
		"who's my new team lead?":     "who's my team lead?",
		"any new hobbies?":            "any new hobbies?",
	} {
		if got := topicOf(q); got != want {
			t.Errorf("topicOf(%q) = %q, want %q", q, got, want)
		}
	}
	for q, want := range map[string]bool{
		"how old are the twins?":        false,
		"what was my old address?":      true,
		"where did I work before Acme?": true,
	} {
		if got := asksAboutPast(lowerWords(q)); got != want {
			t.Errorf("asksAboutPast(%q) = %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]bool{
		"who's my new team lead?": true,
		"any new hobbies?":        false,
		"what's new with Ada?":    false,
	} {
		if got := asksAboutNow(lowerWords(q)); got != want {
			t.Errorf("asksAboutNow(%q) = %v, want %v", q, got, want)
		}
	}
}
