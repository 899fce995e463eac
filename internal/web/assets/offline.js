// offline.js builds one self-contained HTML file of this page: its style and
// scripts inlined, so the copy works from disk with no server. A browser's
// own "save page" keeps the HTML as it is now and references the files
// beside it, which gives a frozen page; this copy starts fresh.
"use strict";

(function () {
  const SCRIPT = /<script src="([^"]+)" defer><\/script>\n?/g;
  const STYLE = /<link rel="stylesheet" href="([^"]+)">/;
  const ICON = /<link rel="icon"[^>]*>\n?/;

  async function text(url) {
    const res = await fetch(url, { cache: "no-cache" });
    if (!res.ok) throw new Error(url + ": HTTP " + res.status);
    return res.text();
  }

  // element wraps a file's text in an inline element; the text may not
  // contain "</script" or "</style", which would end it early.
  const element = (name, body) =>
    "<" + name + ">\n" + body.replace(/<\/(script|style)/gi, "<\\/$1") + "</" + name + ">\n";

  async function build() {
    let html = await text(location.pathname);
    const scripts = [];
    html = html.replace(SCRIPT, (m, src) => {
      scripts.push(src);
      return "";
    }).replace(ICON, "");
    const css = html.match(STYLE);
    const [style, ...bodies] = await Promise.all([css ? text(css[1]) : "", ...scripts.map(text)]);
    if (css) html = html.replace(STYLE, () => element("style", style));
    // Inline scripts at the end of the body run after the document is
    // parsed, in order, as the deferred ones did.
    const tail = bodies.map((b) => element("script", b)).join("");
    return html.replace("<html ", '<html data-offline="true" ').replace("</body>", () => tail + "</body>");
  }

  window.oidkitOffline = Object.freeze({ build: build });
})();
