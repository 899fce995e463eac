package audit

import (
	"fmt"
	"html"
	"strings"
)

// The charts of the HTML report are drawn here as inline SVG, by hand: the
// page must work offline, without a CDN or a script.

const (
	chartW, chartH = 1000, 260
	padL, padR     = 70, 20
	padT, padB     = 20, 40
)

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// chart is one SVG being drawn, with linear x and y scales.
type chart struct {
	b              strings.Builder
	x0, x1, y0, y1 float64
	w, h           int
}

func newChart(title string, x0, x1, y0, y1 float64) *chart {
	if x1 <= x0 {
		x1 = x0 + 1
	}
	if y1 <= y0 {
		y1 = y0 + 1
	}
	c := &chart{x0: x0, x1: x1, y0: y0, y1: y1, w: chartW, h: chartH}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, c.w, c.h, c.w, c.h, html.EscapeString(title))
	fmt.Fprintf(&c.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#fafafa" stroke="#ccc"/>`, padL, padT, c.w-padL-padR, c.h-padT-padB)
	return c
}

func (c *chart) px(x float64) float64 {
	return padL + (x-c.x0)/(c.x1-c.x0)*float64(c.w-padL-padR)
}

func (c *chart) py(y float64) float64 {
	return float64(c.h-padB) - (y-c.y0)/(c.y1-c.y0)*float64(c.h-padT-padB)
}

func (c *chart) rect(x0, x1, y0, y1 float64, color, title string) {
	l, r := c.px(x0), c.px(x1)
	top, bot := c.py(y1), c.py(y0)
	if top > bot {
		top, bot = bot, top
	}
	fmt.Fprintf(&c.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`,
		l, top, max(r-l, 1), max(bot-top, 1), color, html.EscapeString(title))
}

func (c *chart) polyline(xs, ys []float64, color, title string) {
	var pts strings.Builder
	for i := range xs {
		fmt.Fprintf(&pts, "%.1f,%.1f ", c.px(xs[i]), c.py(ys[i]))
	}
	fmt.Fprintf(&c.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"><title>%s</title></polyline>`, pts.String(), color, html.EscapeString(title))
	for i := range xs {
		fmt.Fprintf(&c.b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`, c.px(xs[i]), c.py(ys[i]), color)
	}
}

func (c *chart) text(x, y float64, anchor, s string) {
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="%s" font-family="sans-serif">%s</text>`, x, y, anchor, html.EscapeString(s))
}

// axes labels the corners of both scales with fx and fy.
func (c *chart) axes(fx, fy func(float64) string) {
	c.text(padL, float64(c.h-padB+15), "start", fx(c.x0))
	c.text(float64(c.w-padR), float64(c.h-padB+15), "end", fx(c.x1))
	c.text(padL-5, float64(c.h-padB), "end", fy(c.y0))
	c.text(padL-5, padT+10, "end", fy(c.y1))
}

func (c *chart) String() string { return c.b.String() + "</svg>" }
