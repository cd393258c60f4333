package engine

import (
	"testing"

	"github.com/mnemon-dev/mnemon/search"
)

// A task's words and a rule's words meet in a domain though they share
// none; words of no domain meet nothing.
func TestTaskDomains(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{"pack my lunch for the hike", "food+travel"},
		{"book us a table friday, somewhere thai", "food+schedule"},
		{"no cilantro ever, it tastes like soap", "food"},
		{"put something on for my deep work block", "focus"},
		{"anything with words wrecks my concentration, lo-fi only", "focus"},
		{"when you draft stuff for me, sign off with my first name", "writing"},
		{"the printer jams every other page", "work_tools"},
		{"lol what a match last night", ""},
	} {
		if got := domainsOf(lowerWords(tc.text)).String(); got != tc.want {
			t.Errorf("domainsOf(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	if foodDomain == 0 || memoryDomains("The user prefers oat lattes.", "prefers:drink")&foodDomain == 0 {
		t.Error("a drink preference is not of the food domain")
	}
}

func TestTaskShapes(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"order me dinner tonight":                   true,
		"can you order dinner for me tonight?":      true,
		"could you please book a table for friday?": true,
		"can you believe the weather?":              false,
		"what should I eat tonight?":                false,
		"please pack my lunch":                      true,
	} {
		if got := asksForTask(q, lowerWords(q)); got != want {
			t.Errorf("asksForTask(%q) = %v, want %v", q, got, want)
		}
	}
	an := search.NewAnalyzer()
	for text, want := range map[string]bool{
		"when you draft stuff for me, never use my full name": true,
		"whenever you book flights, aisle only":               true,
		"when is the dentist again?":                          false,
		"can you never mention this again?":                   false,
	} {
		if got := standingInstruction(text, shapeOfText(text, an)); got != want {
			t.Errorf("standingInstruction(%q) = %v, want %v", text, got, want)
		}
	}
	for text, want := range map[string]bool{
		"booked it, I'm going to visit my sister for christmas!": false,
		"Yusuf has release duty this sprint":                     true,
		"whoever is on release duty writes the changelog":        false,
		"my sister lives up north in Tromso":                     true,
		"Honestly the best week":                                 false,
	} {
		if got := bridgeNames(text); got != want {
			t.Errorf("bridgeNames(%q) = %v, want %v", text, got, want)
		}
	}
	if namesPastFirst("booked it, I'm off to see my sister") || !namesPastFirst("Pilchard knocked a mug, Tess laughed") {
		t.Error("namesPastFirst: 'I'm' names no one; a name past the first word does")
	}
}
