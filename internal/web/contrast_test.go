package web

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// contrastJS measures, with WCAG 2 relative luminance, every visible text
// against the background it is drawn on, and the borders of the fields and
// the focus ring against theirs. It returns the failures.
const contrastJS = `(() => {
	const rgba = (s) => { const m = s.match(/[\d.]+/g).map(Number); return {r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1}; };
	const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
	const lum = (c) => 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
	const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
	const bgOf = (el) => {
		for (let e = el; e; e = e.parentElement) {
			const c = rgba(getComputedStyle(e).backgroundColor);
			if (c.a > 0) return c;
		}
		return {r: 255, g: 255, b: 255, a: 1};
	};
	const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
	const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className ? "." + String(el.className).split(" ")[0] : "");
	const bad = [];
	document.querySelectorAll("body *").forEach((el) => {
		if (!shown(el) || el.classList.contains("offscreen") || el.classList.contains("skip")) return;
		const hasText = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim() !== "") ||
			((el.tagName === "INPUT" || el.tagName === "TEXTAREA") && el.value);
		if (hasText) {
			const r = ratio(rgba(getComputedStyle(el).color), bgOf(el));
			if (r < 4.5) bad.push("text " + name(el) + " " + r.toFixed(2));
		}
		if (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) {
			const r = ratio(rgba(getComputedStyle(el).borderTopColor), bgOf(el.parentElement));
			if (r < 3) bad.push("border " + name(el) + " " + r.toFixed(2));
		}
	});
	const input = document.getElementById("decode-input");
	input.focus();
	const ring = ratio(rgba(getComputedStyle(input).outlineColor), bgOf(input.parentElement));
	if (ring < 3 || getComputedStyle(input).outlineStyle === "none") bad.push("focus ring " + ring.toFixed(2));
	input.blur();
	return bad;
})()`

// Text reaches 4.5:1 and field borders and the focus ring 3:1 against
// their backgrounds, in both colour schemes and both languages.
func TestPageContrast(t *testing.T) {
	for _, scheme := range []string{"light", "dark"} {
		ctx := openPage(t, "")
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		}); err != nil {
			t.Fatalf("emulating %s: %v", scheme, err)
		}
		typeInto(t, ctx, "count", "3")
		do(t, ctx, "pressing Generate", chromedp.Click(chromedp.ID("generate")))
		typeInto(t, ctx, "decode-input", "507f1f77bcf86cd799439011")
		for _, lang := range []string{"en", "tr"} {
			setLang(t, ctx, lang)
			for _, b := range eval[[]string](t, ctx, contrastJS) {
				t.Errorf("%s, %s: %s", scheme, lang, b)
			}
		}
	}
}
