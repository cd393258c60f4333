package engine

import "testing"

func TestSameText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"The offsite budget moved.", "the  offsite\tbudget MOVED.", true},
		{"  leading and trailing  ", "leading and trailing", true},
		{"Zürich is home", "zürich  IS home", true},
		{"Zürich is home", "Zurich is home", false},
		{"ok cool", "okcool", false},
		{"ok cool", "ok cool!", false},
	} {
		if got := sameText(tc.a) == sameText(tc.b); got != tc.same {
			t.Errorf("sameText(%q) == sameText(%q): %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if sameTextRunes(tc.a) != sameText(tc.a) && isASCII(tc.a) {
			t.Errorf("%q: the ASCII and rune paths disagree", tc.a)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
