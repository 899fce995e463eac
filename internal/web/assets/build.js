// The "build from parts" form: a time, a random value and a counter joined
// into an ID and the next one, with the generator of oid.js.
"use strict";

(function () {
  const kit = window.oidkit;
  const i18n = window.oidkitI18n;
  const $ = (id) => document.getElementById(id);
  const MAX_COUNTER = 0xffffff;

  // readCounter takes decimal ("12345") or hex with 0x ("0x3039").
  function readCounter(raw) {
    const s = raw.trim();
    let n = NaN;
    if (/^0x[0-9a-f]{1,6}$/i.test(s)) n = parseInt(s.slice(2), 16);
    else if (/^\d{1,8}$/.test(s)) n = Number(s);
    if (!(n >= 0 && n <= MAX_COUNTER)) return { error: i18n.t("counterBad", JSON.stringify(raw)) };
    return { n: n };
  }

  function build() {
    const err = (msg) => {
      $("build-error").textContent = i18n.message(msg);
      $("build-error").hidden = !msg;
      $("build-result").hidden = !!msg;
    };
    const time = kit.parseTime("time", $("build-time").value);
    if (!time.ok) return err(time.error);
    const c = readCounter($("build-counter").value);
    if (c.error) return err(c.error);
    let ids;
    try {
      ids = kit.generate(2, { seconds: time.seconds, random: $("build-random").value.trim(), counter: c.n });
    } catch (e) {
      return err(e.message);
    }
    err("");
    $("build-id").textContent = ids[0];
    $("build-next").textContent = ids[1];
  }

  ["build-time", "build-random", "build-counter"].forEach((id) => $(id).addEventListener("input", build));
  $("build-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    build();
  });
  i18n.onChange(build);
  build();
})();
