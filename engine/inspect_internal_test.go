package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestP95(t *testing.T) {
	t.Parallel()
	cases := []struct {
		xs   []int64
		want int64
	}{
		{nil, 0},
		{[]int64{7}, 7},
		{[]int64{3, 1, 2}, 3},
		{[]int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200}, 190},
	}
	for _, c := range cases {
		if got := p95(c.xs); got != c.want {
			t.Errorf("p95(%v) = %d, want %d", c.xs, got, c.want)
		}
	}
}

func TestCursor(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 5, 11, 35, 0, 123456789, time.UTC)
	c := memory.VersionCursor{RecordedAt: at, ID: "ver_01m9.x"}
	got, err := ParseCursor(FormatCursor(c))
	if err != nil || !got.RecordedAt.Equal(at) || got.ID != c.ID {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "abc", ".ver_x", "zz!.ver_x", "12."} {
		if _, err := ParseCursor(bad); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("ParseCursor(%q): %v, want invalid", bad, err)
		}
	}
}
