package extract

import "testing"

func TestGate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		keep   bool
		reason string
	}{
		// Nothing to read.
		{"", false, "empty"},
		{"   \n\t", false, "empty"},
		// One- or two-word acknowledgements, punctuation and emoji.
		{"ok", false, "acknowledgement"},
		{"OK.", false, "acknowledgement"},
		{"thanks!", false, "acknowledgement"},
		{"Thank you", false, "acknowledgement"},
		{"sure thing", false, "acknowledgement"},
		{"got it", false, "acknowledgement"},
		{"lol", false, "acknowledgement"},
		{"sounds good", false, "acknowledgement"},
		{"👍", false, "acknowledgement"},
		{"!!", false, "acknowledgement"},
		{":)", false, "acknowledgement"},
		{"never mind", false, "acknowledgement"},
		{"no worries", false, "acknowledgement"},
		// Longer runs of acknowledgement words are still acknowledgements.
		{"thank you so much", false, "acknowledgement"},
		{"ok sounds good, thanks", false, "acknowledgement"},
		// Rescue markers keep short instructions.
		{"always pnpm", true, "rescued:always"},
		{"never again", true, "rescued:never"},
		{"use tabs", true, "rescued:use"},
		{"prefer tabs", true, "rescued:prefer"},
		{"decided: Postgres", true, "rescued:decided"},
		{"don't", true, "rescued:don't"},
		{"do not", true, "rescued:do not"},
		{"must!", true, "rescued:must"},
		{"remember this", true, "rescued:remember"},
		{"constraint", true, "rescued:constraint"},
		{"ok, remember", true, "rescued:remember"},
		// Short answers that are not acknowledgements are kept.
		{"Neovim.", true, "ok"},
		{"Berlin", true, "ok"},
		// Anything longer is kept.
		{"I prefer Vim.", true, "ok"},
		{"ok but use pnpm from now on please", true, "ok"},
	}
	for _, tc := range cases {
		got := Gate(tc.in)
		if got.Keep != tc.keep || got.Reason != tc.reason {
			t.Errorf("Gate(%q) = %+v, want {Keep:%v Reason:%s}", tc.in, got, tc.keep, tc.reason)
		}
	}
}
