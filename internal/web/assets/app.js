// The page's controls. All ObjectID rules live in oid.js (window.oidkit).
"use strict";

(function () {
  const kit = window.oidkit;
  const i18n = window.oidkitI18n;
  const t = i18n.t;
  const $ = (id) => document.getElementById(id);

  let current = []; // the IDs on screen

  function showError(el, input, msg) {
    el.textContent = msg;
    el.hidden = !msg;
    if (input) {
      if (msg) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
  }

  // copyText uses the asynchronous clipboard where the page may, and a
  // selected hidden textarea with execCommand("copy") where it may not.
  async function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch (e) {
        // fall through to the fallback (permission refused, page not focused)
      }
    }
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "offscreen";
    document.body.appendChild(ta);
    const active = document.activeElement;
    ta.select();
    let done = false;
    try {
      done = document.execCommand("copy");
    } catch (e) {
      done = false;
    }
    ta.remove();
    if (active && active.focus) active.focus();
    return done;
  }

  async function copyWithStatus(text, statusEl, what) {
    const done = await copyText(text);
    statusEl.textContent = done ? t("copied", what) : t("copyFailed");
  }

  function download(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type: type }));
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.className = "offscreen";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // longDate writes a second in the chosen language's words and the
  // browser's time zone.
  function longDate(seconds) {
    return new Intl.DateTimeFormat(i18n.locale(), { dateStyle: "full", timeStyle: "long" })
      .format(new Date(seconds * 1000));
  }

  // --- Generate ---------------------------------------------------------

  function readCount() {
    const raw = $("count").value.trim();
    if (!/^\d+$/.test(raw)) {
      return { error: raw === "" ? t("countEmpty") : t("countBad", JSON.stringify(raw)) };
    }
    const n = Number(raw);
    if (n < 1 || n > 100) {
      return { error: t("countBad", raw) };
    }
    return { n: n };
  }

  function render(ids) {
    const list = $("ids");
    list.textContent = "";
    ids.forEach((id, i) => {
      const li = document.createElement("li");
      const code = document.createElement("code");
      code.className = "id";
      code.textContent = id;
      const copy = document.createElement("button");
      copy.type = "button";
      copy.className = "small";
      copy.textContent = t("copy");
      copy.setAttribute("aria-label", t("copyLabel", i + 1, id));
      copy.addEventListener("click", () => copyWithStatus(id, $("gen-status"), id));
      const dec = document.createElement("button");
      dec.type = "button";
      dec.className = "small";
      dec.textContent = t("decode");
      dec.setAttribute("aria-label", t("decodeLabel", i + 1, id));
      dec.addEventListener("click", () => {
        $("decode-input").value = id;
        showDecode(true);
        $("decode-section").scrollIntoView({ block: "start" });
        $("decode-input").focus();
      });
      li.append(code, " ", copy, " ", dec);
      list.appendChild(li);
    });
    $("gen-actions").hidden = ids.length === 0;
  }

  $("gen-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const c = readCount();
    if (c.error) {
      showError($("count-error"), $("count"), c.error);
      $("count").focus();
      return;
    }
    showError($("count-error"), $("count"), "");
    current = kit.generate(c.n);
    render(current);
    $("gen-status").textContent = t("generated", c.n);
  });
  $("count").addEventListener("input", () => {
    if (!$("count-error").hidden && !readCount().error) showError($("count-error"), $("count"), "");
  });

  $("copy-all").addEventListener("click", () =>
    copyWithStatus(kit.exportText(current, "text"), $("gen-status"),
      t("nIDs", current.length)));
  $("download-txt").addEventListener("click", () =>
    download("objectids.txt", "text/plain", kit.exportText(current, "text")));
  $("download-json").addEventListener("click", () =>
    download("objectids.json", "application/json", kit.exportText(current, "json")));
  $("download-ndjson").addEventListener("click", () =>
    download("objectids.ndjson", "application/x-ndjson", kit.exportText(current, "ndjson")));

  // --- Decode -----------------------------------------------------------

  // The decoder stays quiet while the user is still typing: an error shows
  // only once the input is 24 characters or more, or on blur or submit.
  const ID_LENGTH = 24;

  function showDecode(insist) {
    const raw = $("decode-input").value;
    if (raw.trim() === "") {
      showError($("decode-error"), $("decode-input"), "");
      $("decode-result").hidden = true;
      return;
    }
    const d = kit.decode(raw);
    if (!d.ok) {
      const typing = !insist && kit.clean(raw).length < ID_LENGTH;
      showError($("decode-error"), $("decode-input"), typing ? "" : i18n.message(d.error));
      $("decode-result").hidden = true;
      return;
    }
    showError($("decode-error"), $("decode-input"), "");
    $("hex-ts").textContent = d.parts[0];
    $("hex-rnd").textContent = d.parts[1];
    $("hex-ctr").textContent = d.parts[2];
    $("decode-utc").textContent = d.timestamp;
    $("decode-local").textContent = d.local;
    $("decode-words").textContent = longDate(d.unix);
    $("decode-unix").textContent = String(d.unix);
    $("decode-random").textContent = d.random;
    $("decode-counter").textContent = d.counter + " (0x" + d.parts[2] + ")";
    $("decode-shell").textContent = 'ObjectId("' + d.id + '").getTimestamp()';
    $("decode-iso").textContent = 'ISODate("' + d.timestamp.replace("Z", ".000Z") + '")';
    $("decode-result").hidden = false;
  }

  $("decode-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    showDecode(true);
  });
  $("decode-input").addEventListener("input", () => showDecode(false));
  $("decode-input").addEventListener("blur", () => showDecode(true));

  // --- Created between --------------------------------------------------

  // showRange recomputes everything from the fields as they are now, so the
  // bounds, filter and mongosh text never describe times no longer shown.
  // While the user types (quiet), a time not yet valid hides the result
  // without an error; the error comes on blur, submit or a copy.
  function showRange(quiet) {
    const r = kit.range($("range-from").value, $("range-to").value);
    $("range-status").textContent = "";
    if (!r.ok) {
      showError($("range-error"), null, quiet === true ? "" : i18n.message(r.error));
      $("range-result").hidden = true;
      return r;
    }
    showError($("range-error"), null, "");
    $("range-lo").textContent = r.gte + " (" + r.from + ", " + t("inclusive") + ")";
    if (r.lt) $("range-hi").textContent = r.lt + " (" + r.to + ", " + t("exclusive") + ")";
    else if (r.lte) $("range-hi").textContent = r.lte + " (" + r.to + ", " + t("lastSecond") + ")";
    else $("range-hi").textContent = t("noUpper");
    $("range-filter").value = r.filter;
    $("range-shell").value = r.shell;
    $("range-result").hidden = false;
    fitBoxes();
    return r;
  }

  // fitBoxes makes the filter and query boxes as tall as their text, so a
  // phone shows all of it without a scroll box inside the page.
  function fitBoxes() {
    ["range-filter", "range-shell"].forEach((id) => {
      const ta = $(id);
      ta.style.height = "auto";
      ta.style.height = ta.scrollHeight + (ta.offsetHeight - ta.clientHeight) + "px";
    });
  }
  window.addEventListener("resize", fitBoxes);

  function nowRFC3339() {
    return new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  }

  // copyRange copies what the fields say at the moment of the click, or
  // nothing when they no longer make a window.
  function copyRange(field, what) {
    const r = showRange();
    if (!r.ok) return;
    copyWithStatus(r[field], $("range-status"), what);
  }

  $("range-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    showRange();
  });
  ["range-from", "range-to"].forEach((id) => {
    $(id).addEventListener("input", () => showRange(true));
    $(id).addEventListener("blur", () => showRange());
  });
  $("range-now").addEventListener("click", () => {
    $("range-to").value = nowRFC3339();
    showRange();
  });
  $("range-copy").addEventListener("click", () => copyRange("filter", t("theFilter")));
  $("range-copy-shell").addEventListener("click", () => copyRange("shell", t("theShell")));

  // Start with the last 24 hours so the helper shows something useful.
  const now = Math.floor(Date.now() / 1000);
  $("range-to").value = nowRFC3339();
  $("range-from").value = new Date((now - 86400) * 1000).toISOString().replace(".000Z", "Z");
  showRange();

  // --- Offline copy ------------------------------------------------------

  // The copy is one HTML file; in the copy itself (no server to read the
  // files from) the button has nothing to do, so it is hidden.
  if (document.documentElement.dataset.offline === "true") {
    $("save-offline").parentElement.hidden = true;
  }
  $("save-offline").addEventListener("click", async () => {
    try {
      download("oidkit-objectid.html", "text/html", await window.oidkitOffline.build());
      $("save-status").textContent = t("saved");
    } catch (e) {
      $("save-status").textContent = t("saveFailed", e.message);
    }
  });

  // --- Language ---------------------------------------------------------

  // Everything the script wrote is written again in the new language;
  // statuses about past actions are cleared rather than translated.
  function relabel() {
    $("lang").value = i18n.lang();
    render(current);
    if (!$("count-error").hidden) showError($("count-error"), $("count"), readCount().error || "");
    if (!$("decode-result").hidden || !$("decode-error").hidden) showDecode(!$("decode-error").hidden);
    showRange();
    $("gen-status").textContent = "";
  }
  $("lang").addEventListener("change", () => i18n.set($("lang").value));
  i18n.onChange(relabel);
  i18n.apply();
  $("lang").value = i18n.lang();
  document.documentElement.dataset.ready = "true";
})();
