package synthetic

import (
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2025, 1, d, 12, 0, 0, 0, time.UTC) }
	cands := []string{"Python", "Rust", "Java", "green tea", "tea"}
	for _, tc := range []struct {
		name  string
		asks  Asks
		items []Item
		want  string
	}{
		{"nothing", Current, nil, ""},
		{"no candidate named", Current, []Item{{Text: "Good morning!", Time: day(1)}}, ""},
		{"first item decides the current value", Current, []Item{
			{Text: "The user's favorite language is Rust.", Time: day(1)},
			{Text: "I love Python.", Time: day(5)},
		}, "Rust"},
		{"an ended item is not current", Current, []Item{
			{Text: "The user's favorite language is Python.", Time: day(1), Ended: true},
			{Text: "The user's favorite language is Rust.", Time: day(3)},
		}, "Rust"},
		{"all ended: the newest stands", Current, []Item{
			{Text: "Python.", Time: day(1), Ended: true},
			{Text: "Rust.", Time: day(3), Ended: true},
		}, "Rust"},
		{"an item about someone else is not read", Current, []Item{
			{Text: "The user's wife likes Java.", Time: day(4), About: "wife"},
			{Text: "The user's favorite language is Rust.", Time: day(1), About: "user"},
		}, "Rust"},
		{"someone else's newer fact does not make the user's current one past", Previous, []Item{
			{Text: "The user's favorite language is Python.", Time: day(1), About: "user", Ended: true},
			{Text: "The user's favorite language is Rust.", Time: day(2), About: "user"},
			{Text: "Priya's favorite language is Java.", Time: day(3), About: "priya"},
		}, "Python"},
		{"an item that does not say whom it is about is read", Current, []Item{{Text: "My mom loves Java.", Time: day(4)}}, "Java"},
		{"beside a fact about the user, a raw turn is not read", Previous, []Item{
			{Text: "The user's favorite language is Python.", Time: day(1), About: "user", Ended: true},
			{Text: "The user's favorite language is Rust.", Time: day(2), About: "user"},
			{Text: "Is Java hard to learn?", Time: day(3)},
		}, "Python"},
		{"the value named last holds", Current, []Item{{Text: "I switched from Python to Rust.", Time: day(2)}}, "Rust"},
		{"the value named first held before", Previous, []Item{{Text: "I switched from Python to Rust.", Time: day(2)}}, "Python"},
		{"previous is the newest older value", Previous, []Item{
			{Text: "Python", Time: day(1), Ended: true},
			{Text: "Java", Time: day(2), Ended: true},
			{Text: "Rust", Time: day(3)},
		}, "Java"},
		{"asked about the past, the newest unended value is current", Previous, []Item{
			{Text: "Rust", Time: day(3)},
			{Text: "Java", Time: day(4)},
		}, "Rust"},
		{"nothing older than the current value", Previous, []Item{
			{Text: "Rust", Time: day(3)},
			{Text: "Java", Time: day(4), Ended: true},
		}, ""},
		{"the same value restated is not previous", Previous, []Item{
			{Text: "Rust", Time: day(3)},
			{Text: "Rust again", Time: day(2)},
			{Text: "Python", Time: day(1)},
		}, "Python"},
		{"an unsettled item is not read", Current, []Item{
			{Text: "The user's editor may be Java.", Time: day(5), Unsettled: true},
			{Text: "The user's favorite language is Rust.", Time: day(1)},
		}, "Rust"},
		{"whole words only", Current, []Item{{Text: "JavaScript and Rusty pipes", Time: day(1)}}, ""},
		{"case does not matter", Current, []Item{{Text: "i like python", Time: day(1)}}, "Python"},
		{"a longer value is one mention", Current, []Item{{Text: "I drink green tea.", Time: day(1)}}, "green tea"},
		{"only the first items count for previous", Previous, []Item{
			{Text: "Rust", Time: day(9)},
			{Text: "Rust", Time: day(8)},
			{Text: "Rust", Time: day(7)},
			{Text: "Rust", Time: day(6)},
			{Text: "Rust", Time: day(5)},
			{Text: "Python", Time: day(1)},
		}, ""},
	} {
		if got := Read(tc.asks, cands, tc.items); got != tc.want {
			t.Errorf("%s: Read = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestReadPreviousTakesTheNewestUnendedAsCurrent(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2025, 1, d, 12, 0, 0, 0, time.UTC) }
	cands := []string{"Denver", "Melbourne", "Toronto"}
	items := []Item{
		{Text: "The user lives in Denver.", Time: day(1), Ended: true},
		{Text: "The user lives in Melbourne.", Time: day(10), Ended: true},
		{Text: "I'm based in Denver.", Time: day(1)}, // an old message, ranked high
		{Text: "The user lives in Toronto.", Time: day(20)},
	}
	if got := Read(Previous, cands, items); got != "Melbourne" {
		t.Fatalf("previous = %q, want Melbourne", got)
	}
	// Asked for the current value, order decides: the retrieval ranked for
	// the present.
	if got := Read(Current, cands, items); got != "Denver" {
		t.Fatalf("current = %q, want the first unended item's Denver", got)
	}
}
