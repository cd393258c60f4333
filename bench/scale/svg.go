package scale

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Series is one named curve.
type Series struct {
	Name string
	X, Y []float64
}

func (s *Series) add(x, y float64) {
	s.X = append(s.X, x)
	s.Y = append(s.Y, y)
}

// Plot is a line chart: Y linear from zero, X linear or log10.
type Plot struct {
	Title, XLabel, YLabel string
	LogX                  bool
	Series                []Series
	Notes                 []string // shown under the legend, such as an arm that could not run
}

// Layout of every plot, in SVG user units.
const (
	svgW, svgH         = 840, 420
	padL, padR         = 70, 330 // the right margin holds the legend
	padT, padB         = 40, 60
	plotW, plotH       = svgW - padL - padR, svgH - padT - padB
	tickLen            = 5
	markerR            = 3
	legendRow          = 18
	fontFamily         = "sans-serif"
	gridColor, axisCol = "#ddd", "#333"
)

var palette = [...]string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}

// WriteSVG draws p as a standalone SVG document.
func WriteSVG(w io.Writer, p Plot) error {
	xs, ys := []float64{}, []float64{0}
	for _, s := range p.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("svg: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		xs = append(xs, s.X...)
		ys = append(ys, s.Y...)
	}
	if len(xs) == 0 {
		return fmt.Errorf("svg: %q has no points", p.Title)
	}
	if p.LogX {
		for _, x := range xs {
			if x <= 0 {
				return fmt.Errorf("svg: %q: x %v on a log scale", p.Title, x)
			}
		}
	}
	xAxis := newAxis(xs, p.LogX)
	yAxis := newAxis(ys, false)
	px := func(x float64) float64 { return padL + xAxis.frac(x)*plotW }
	py := func(y float64) float64 { return padT + (1-yAxis.frac(y))*plotH }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" font-size="12">`+"\n", svgW, svgH, svgW, svgH, fontFamily)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	text(&b, svgW/2-padR/2+padL/2, 22, "middle", "font-size=\"15\" font-weight=\"bold\"", p.Title)
	for _, t := range yAxis.ticks {
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", padL, y, padL+plotW, y, gridColor)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", padL-tickLen, y, padL, y, axisCol)
		text(&b, padL-tickLen-3, y+4, "end", "", label(t))
	}
	for _, t := range xAxis.ticks {
		x := px(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", x, padT, x, padT+plotH, gridColor)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", x, padT+plotH, x, padT+plotH+tickLen, axisCol)
		text(&b, x, padT+plotH+tickLen+14, "middle", "", label(t))
	}
	fmt.Fprintf(&b, `<path d="M%d %d V%d H%d" fill="none" stroke="%s"/>`+"\n", padL, padT, padT+plotH, padL+plotW, axisCol)
	text(&b, padL+plotW/2, svgH-14, "middle", "", p.XLabel)
	fmt.Fprintf(&b, `<g transform="translate(18 %d) rotate(-90)">`, padT+plotH/2)
	text(&b, 0, 0, "middle", "", p.YLabel)
	b.WriteString("</g>\n")
	for i, s := range p.Series {
		color := palette[i%len(palette)]
		fmt.Fprintf(&b, `<g class="series" data-name="%s" stroke="%s" fill="%s">`+"\n", esc(s.Name), color, color)
		var pts bytes.Buffer
		for j := range s.X {
			fmt.Fprintf(&pts, "%.1f,%.1f ", px(s.X[j]), py(s.Y[j]))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke-width="2" points="%s"/>`+"\n", bytes.TrimSpace(pts.Bytes()))
		for j := range s.X {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%d"><title>%s: %s, %s</title></circle>`+"\n",
				px(s.X[j]), py(s.Y[j]), markerR, esc(s.Name), label(s.X[j]), strconv.FormatFloat(s.Y[j], 'g', 4, 64))
		}
		b.WriteString("</g>\n")
		ly := float64(padT + 10 + i*legendRow)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", padL+plotW+15, ly, padL+plotW+35, ly, color)
		text(&b, padL+plotW+40, ly+4, "start", "", s.Name)
	}
	for i, n := range p.Notes {
		text(&b, padL+plotW+15, float64(padT+14+(len(p.Series)+1+i)*legendRow), "start", `font-style="italic" fill="#666"`, n)
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

func text(b *bytes.Buffer, x, y float64, anchor, attrs, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="%s" %s>%s</text>`+"\n", x, y, anchor, attrs, esc(s))
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writes to a buffer: cannot fail
	return b.String()
}

// axis maps data values onto [0, 1] and chooses ticks.
type axis struct {
	lo, hi float64
	log    bool
	ticks  []float64
}

func newAxis(vs []float64, log bool) axis {
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	if log {
		// Whole decades, with 2 and 5 between them when there are few.
		a := axis{log: true, lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(hi)))}
		if a.hi <= a.lo {
			a.hi = a.lo * 10
		}
		decades := math.Round(math.Log10(a.hi / a.lo))
		for d := a.lo; d <= a.hi*1.0001; d *= 10 {
			a.ticks = append(a.ticks, d)
			if decades <= 3 {
				for _, m := range []float64{2, 5} {
					if d*m < a.hi {
						a.ticks = append(a.ticks, d*m)
					}
				}
			}
		}
		return a
	}
	// Linear from zero (or lo, if negative) to a round number above hi.
	lo = min(lo, 0)
	if hi <= lo {
		hi = lo + 1
	}
	step := niceStep((hi - lo) / 5)
	a := axis{lo: math.Floor(lo/step) * step, hi: math.Ceil(hi/step) * step}
	for t := a.lo; t <= a.hi+step/2; t += step {
		a.ticks = append(a.ticks, math.Round(t/step)*step)
	}
	return a
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

func (a axis) frac(v float64) float64 {
	if a.log {
		return math.Log10(v/a.lo) / math.Log10(a.hi/a.lo)
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// label writes a tick value briefly: 1k, 2.5, 100k, 1M.
func label(v float64) string {
	if v >= 1000 && v == math.Trunc(v) {
		if v >= 1e6 && math.Mod(v, 1e5) == 0 {
			return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
		}
		if math.Mod(v, 100) == 0 {
			return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
		}
	}
	// Six significant digits hide float noise such as 0.30000000000000004.
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return strconv.FormatFloat(v, 'f', -1, 64)
}
