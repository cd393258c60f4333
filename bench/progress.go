package bench

import (
	"fmt"
	"io"
	"time"
)

// Progress draws one line, "phase  done/total", redrawn in place at most
// ten times a second. A nil *Progress is silent too. It is for terminals: callers pass a nil writer when
// stderr is a file or a pipe, and a nil writer draws nothing.
type Progress struct {
	w           io.Writer
	phase       string
	done, total int
	drawn       time.Time
}

// NewProgress starts a phase of total steps on w (nil: silent).
func NewProgress(w io.Writer, phase string, total int) *Progress {
	p := &Progress{w: w, phase: phase, total: total}
	p.draw()
	return p
}

// Add records n more steps done.
func (p *Progress) Add(n int) {
	if p == nil {
		return
	}
	p.done += n
	if p.w != nil && time.Since(p.drawn) >= 100*time.Millisecond {
		p.draw()
	}
}

// Done draws the final count and ends the line.
func (p *Progress) Done() {
	if p == nil || p.w == nil {
		return
	}
	p.draw()
	fmt.Fprintln(p.w)
}

func (p *Progress) draw() {
	if p.w == nil {
		return
	}
	p.drawn = time.Now()
	const width = 30
	filled := 0
	if p.total > 0 {
		filled = min(width, p.done*width/p.total)
	}
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = ' '
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%-28s [%s] %d/%d", p.phase, bar, p.done, p.total)
}
