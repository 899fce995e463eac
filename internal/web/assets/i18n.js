// The page's two languages. Static text is in index.html as pairs of
// elements, <span lang="en"> and <span lang="tr">, and style.css hides the
// one not chosen; the strings the script writes are here. The choice comes
// from localStorage, else from the browser's language, and is remembered.
"use strict";

(function () {
  const STORE_KEY = "oidkit.lang";
  const LANGS = ["en", "tr"];

  const text = {
    en: {
      title: "oidkit — MongoDB ObjectID generator and decoder",
      countEmpty: "Enter how many IDs to make: a whole number from 1 to 100.",
      countBad: (raw) => "count " + raw + ": expected a whole number from 1 to 100",
      generated: (n) => "Generated " + n + (n === 1 ? " ID." : " IDs."),
      copy: "Copy",
      decode: "Decode",
      copyLabel: (i, id) => "Copy ID " + i + ", " + id,
      decodeLabel: (i, id) => "Decode ID " + i + ", " + id,
      copied: (what) => "Copied " + what + ".",
      copyFailed: "Could not copy: select the text and copy it by hand.",
      nIDs: (n) => n + (n === 1 ? " ID" : " IDs"),
      theFilter: "the filter",
      theShell: "the mongosh query",
      inclusive: "inclusive: $gte",
      exclusive: "exclusive: $lt",
      lastSecond: "inclusive: $lte; the last second has no exclusive bound",
      noUpper: "none (no upper bound)",
      counterBad: (raw) => "counter " + raw + ": expected 0 to 16777215 in decimal, or hex as 0x3039",
      saved: "Saved oidkit-objectid.html: open it from disk, no server needed.",
      saveFailed: (why) => "Could not build the copy: " + why,
    },
    tr: {
      title: "oidkit — MongoDB ObjectID oluşturucu ve çözücü",
      countEmpty: "Kaç kimlik oluşturulacağını girin: 1 ile 100 arasında bir tam sayı.",
      countBad: (raw) => "sayı " + raw + ": 1 ile 100 arasında bir tam sayı bekleniyordu",
      generated: (n) => n + " kimlik oluşturuldu.",
      copy: "Kopyala",
      decode: "Çöz",
      copyLabel: (i, id) => i + ". kimliği kopyala, " + id,
      decodeLabel: (i, id) => i + ". kimliği çöz, " + id,
      copied: (what) => what + " kopyalandı.",
      copyFailed: "Kopyalanamadı: metni seçip elle kopyalayın.",
      nIDs: (n) => n + " kimlik",
      theFilter: "Filtre",
      theShell: "mongosh sorgusu",
      inclusive: "dahil: $gte",
      exclusive: "hariç: $lt",
      lastSecond: "dahil: $lte; son saniyenin hariç sınırı yoktur",
      noUpper: "yok (üst sınır yok)",
      counterBad: (raw) => "sayaç " + raw + ": ondalık 0 ile 16777215 arası ya da 0x3039 gibi onaltılık bekleniyordu",
      saved: "oidkit-objectid.html kaydedildi: diskten açın, sunucu gerekmez.",
      saveFailed: (why) => "Kopya oluşturulamadı: " + why,
    },
  };

  // The messages of oid.js are those of the command line, in English. In
  // Turkish their known shapes are rewritten; the quoted input stays as it is.
  const FIELD_TR = { from: "başlangıç", to: "bitiş", time: "zaman" };
  const MESSAGES_TR = [
    [/^invalid ObjectID (.*): length (\d+), expected 24 hex characters$/s,
      (m) => "geçersiz ObjectID " + m[1] + ": uzunluk " + m[2] + ", 24 onaltılık karakter bekleniyordu"],
    [/^invalid ObjectID (.*): invalid character (.*) at position (\d+), expected 0-9, a-f or A-F$/s,
      (m) => "geçersiz ObjectID " + m[1] + ": " + m[3] + ". konumda geçersiz karakter " + m[2] + "; 0-9, a-f ya da A-F bekleniyordu"],
    [/^(from|to|time) (.*): outside the ObjectID range (.*)$/s,
      (m) => FIELD_TR[m[1]] + " " + m[2] + ": ObjectID aralığının dışında " + m[3]],
    [/^(from|to|time) (.*): expected RFC 3339 \((.*)\) or Unix seconds$/s,
      (m) => FIELD_TR[m[1]] + " " + m[2] + ": RFC 3339 (" + m[3] + ") ya da Unix saniyesi bekleniyordu"],
    [/^to (.*): expected a time after from (.*) \(the window is \[from, to\), whole seconds\)$/s,
      (m) => "bitiş " + m[1] + ": başlangıç " + m[2] + " sonrasında bir zaman bekleniyordu (aralık [başlangıç, bitiş), tam saniye)"],
    [/^random (.*): expected 10 hex characters$/s,
      (m) => "rastgele değer " + m[1] + ": 10 onaltılık karakter bekleniyordu"],
  ];

  function message(english) {
    if (lang !== "tr" || !english) return english;
    for (const [re, f] of MESSAGES_TR) {
      const m = re.exec(english);
      if (m) return f(m);
    }
    return english;
  }

  function initial() {
    let saved = null;
    try {
      saved = localStorage.getItem(STORE_KEY);
    } catch (e) {
      saved = null; // storage refused (private mode, file://): fall back
    }
    if (LANGS.includes(saved)) return saved;
    const nav = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
    return nav.toLowerCase().startsWith("tr") ? "tr" : "en";
  }

  let lang = initial();
  const listeners = [];

  function apply() {
    document.documentElement.lang = lang;
    document.title = text[lang].title;
    document.querySelectorAll("[data-aria-tr]").forEach((el) => {
      if (!el.dataset.ariaEn) el.dataset.ariaEn = el.getAttribute("aria-label") || "";
      el.setAttribute("aria-label", lang === "tr" ? el.dataset.ariaTr : el.dataset.ariaEn);
    });
  }

  window.oidkitI18n = Object.freeze({
    lang: () => lang,
    message: (english) => message(english),
    locale: () => (lang === "tr" ? "tr-TR" : "en-GB"),
    // t(key, ...args) is the chosen language's string or function result.
    t: (key, ...args) => {
      const v = text[lang][key];
      return typeof v === "function" ? v(...args) : v;
    },
    set: (l) => {
      if (!LANGS.includes(l)) return;
      lang = l;
      try {
        localStorage.setItem(STORE_KEY, l);
      } catch (e) {
        // not remembered; the page still switches
      }
      apply();
      listeners.forEach((f) => f(l));
    },
    onChange: (f) => listeners.push(f),
    apply: apply,
  });
})();
