package httpapi_test

import (
	"testing"
	"time"
)

// Casual statements captured in a chat session each store the one fact
// they say, under the speaker, with no filler in the value (issue 16).
func TestE2ECasualShapesStoreTheirFact(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	cases := []struct{ say, key, value string }{
		{"my cat is named Biscuit btw", "name_of:cat", "Biscuit"},
		{"allergic to cashews btw, just so you know", "allergic_to:cashews", "cashews"},
		{"honestly more of a tea person now", "prefers:drink", "tea"},
		{"quit red meat a while back, so pescatarian now i guess", "diet", "pescatarian"},
		{"oh and my hamster's name is Noodle lol", "name_of:hamster", "Noodle"},
	}
	for i, c := range cases {
		ns := "casual16" + string(rune('a'+i))
		hdr := []string{"X-Mnemon-Namespace", ns}
		f.e2eCapture(t, "chat-"+ns, []map[string]any{e2eEvent("user_message", c.say, day)}, hdr...)
		fs := f.e2eFacts(t, ns)
		got := factWithValue(fs, "user", c.value)
		if got == nil || got.Key != c.key || got.Status != "active" {
			t.Errorf("%q: want an active user fact %s=%q, got %+v", c.say, c.key, c.value, fs)
		}
		for _, fc := range fs {
			if fc.Key == c.key && fc.Value != c.value {
				t.Errorf("%q: a wrong value stored: %+v", c.say, fc)
			}
		}
	}
}
