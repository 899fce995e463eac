// ObjectID rules for the page, the same as the Go package oid:
// 4-byte unsigned big-endian seconds, a 5-byte random value per page load,
// a 3-byte counter that starts at a random value, +1 per ID, 0xffffff -> 0.
//
// Numbers: seconds go up to 0xffffffff, which is beyond the signed 32-bit
// range that JavaScript's bitwise operators use, so values are kept unsigned
// with >>> 0 and checked with Number.isSafeInteger before any bit operation.
"use strict";

(function () {
  const MAX_SECONDS = 0xffffffff;
  const COUNTER_MASK = 0xffffff;
  const LAST_ID = "ffffffffffffffffffffffff";
  const MAX_BATCH = 100000; // for the programmatic API; the form allows 1..100

  function hex(n, width) {
    return n.toString(16).padStart(width, "0");
  }

  function randomBytes(n) {
    const b = new Uint8Array(n);
    crypto.getRandomValues(b);
    return b;
  }

  // The per-page-load state: one random value and the next counter value.
  const state = {
    random: Array.from(randomBytes(5), (x) => hex(x, 2)).join(""),
    counter: (() => {
      const b = randomBytes(3);
      return ((b[0] << 16) | (b[1] << 8) | b[2]) >>> 0;
    })(),
  };

  function nowSeconds() {
    // Wraps modulo 2^32 as the Go Generator does with its clock.
    return Math.floor(Date.now() / 1000) >>> 0;
  }

  // generate(n, {random, counter, seconds}) returns n IDs as hex strings.
  // random: 10 hex characters; counter: the first counter value (an integer
  // 0..0xffffffff, taken modulo 2^24 like oid.Config.CounterStart); seconds:
  // 0..0xffffffff. Options left out come from the page: its random value, its
  // next counter (which then advances by n), and the clock.
  function generate(n, opts) {
    opts = opts || {};
    if (!Number.isSafeInteger(n) || n < 0 || n > MAX_BATCH) {
      throw new RangeError("count " + String(n) + ": expected a whole number from 0 to " + MAX_BATCH);
    }
    let random = state.random;
    if (opts.random !== undefined) {
      if (typeof opts.random !== "string" || !/^[0-9a-fA-F]{10}$/.test(opts.random)) {
        throw new RangeError("random " + JSON.stringify(opts.random) + ": expected 10 hex characters");
      }
      random = opts.random.toLowerCase();
    }
    let counter;
    if (opts.counter !== undefined) {
      if (!Number.isSafeInteger(opts.counter) || opts.counter < 0 || opts.counter > 0xffffffff) {
        throw new RangeError("counter " + String(opts.counter) + ": expected a whole number from 0 to 4294967295");
      }
      counter = (opts.counter >>> 0) & COUNTER_MASK;
    } else {
      counter = state.counter & COUNTER_MASK;
      state.counter = (state.counter + n) & COUNTER_MASK;
    }
    let seconds;
    if (opts.seconds !== undefined) {
      if (!Number.isSafeInteger(opts.seconds) || opts.seconds < 0 || opts.seconds > MAX_SECONDS) {
        throw new RangeError("seconds " + String(opts.seconds) + ": expected a whole number from 0 to 4294967295");
      }
      seconds = opts.seconds >>> 0;
    } else {
      seconds = nowSeconds();
    }
    const head = hex(seconds, 8) + random;
    const ids = new Array(n);
    for (let i = 0; i < n; i++) {
      ids[i] = head + hex((counter + i) & COUNTER_MASK, 6);
    }
    return ids;
  }

  // goQuote writes a string the way Go's strconv.Quote does, and quoteChar a
  // character the way oid.Parse names it, so the page's messages are
  // oid.Parse's.
  function escapeCode(cp, quote) {
    const c = String.fromCodePoint(cp);
    switch (c) {
      case "\x07": return "\\a";
      case "\b": return "\\b";
      case "\f": return "\\f";
      case "\n": return "\\n";
      case "\r": return "\\r";
      case "\t": return "\\t";
      case "\v": return "\\v";
      case "\\": return "\\\\";
      case quote: return "\\" + quote;
    }
    if (cp < 0x20 || cp === 0x7f) return "\\x" + hex(cp, 2);
    if (cp >= 0x80 && cp < 0xa0) return "\\u" + hex(cp, 4);
    return c;
  }
  function goQuote(s) {
    let out = '"';
    for (const ch of s) out += escapeCode(ch.codePointAt(0), '"');
    return out + '"';
  }
  // quoteShort shows at most 64 characters of the input, as oid.Parse does.
  function quoteShort(chars) {
    if (chars.length > 64) return goQuote(chars.slice(0, 64).join("")) + "...";
    return goQuote(chars.join(""));
  }
  function quoteChar(ch) {
    const cp = ch.codePointAt(0);
    if (cp >= 0x20 && cp < 0x7f) return "'" + escapeCode(cp, "'") + "'";
    if (cp < 0x100) return "0x" + hex(cp, 2);
    return "'" + ch + "' (U+" + hex(cp, 4).toUpperCase() + ")";
  }

  // parse reads 24 hex characters (either case) like oid.Parse and returns
  // {ok: true, hex} or {ok: false, kind, error}. Length and position count
  // characters; for ASCII input they equal oid.Parse's byte counts and the
  // message is oid.Parse's without its "oid: " prefix.
  function parse(s) {
    const chars = Array.from(s);
    if (chars.length !== 24) {
      return {
        ok: false, kind: "length",
        error: "invalid ObjectID " + quoteShort(chars) + ": length " + chars.length + ", expected 24 hex characters",
      };
    }
    for (let i = 0; i < 24; i++) {
      if (!/^[0-9a-fA-F]$/.test(chars[i])) {
        return {
          ok: false, kind: "character", position: i,
          error: "invalid ObjectID " + quoteShort(chars) + ": invalid character " + quoteChar(chars[i]) +
            " at position " + i + ", expected 0-9, a-f or A-F",
        };
      }
    }
    return { ok: true, hex: s.toLowerCase() };
  }

  // clean removes what people paste around an ID: whitespace (a BOM too),
  // quotes, and an ObjectId(...) or {"$oid":"..."} wrapper. Like oidkit
  // inspect, the quotes inside ObjectId(...) may be left out; articles print
  // them curly (“...”, ‘...’), so those count as quotes too.
  function clean(s) {
    s = s.trim();
    let m = /^(?:new\s+)?ObjectId\(\s*(.*?)\s*\)$/i.exec(s);
    if (m) return unquote(m[1]);
    m = /^\{\s*"\$oid"\s*:\s*"(.*)"\s*\}$/.exec(s);
    if (m) return m[1];
    return unquote(s);
  }

  const QUOTE_PAIRS = ['""', "''", "\u201c\u201d", "\u2018\u2019", "\u201d\u201d"];
  function unquote(s) {
    if (s.length >= 2 && QUOTE_PAIRS.includes(s[0] + s[s.length - 1])) return s.slice(1, -1);
    return s;
  }

  function pad2(n) { return String(n).padStart(2, "0"); }

  function utcString(seconds) {
    // Date holds milliseconds up to 8.64e15; 0xffffffff * 1000 is well inside.
    return new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
  }

  function localString(seconds) {
    const d = new Date(seconds * 1000);
    const off = -d.getTimezoneOffset(); // minutes east of UTC
    const sign = off < 0 ? "-" : "+";
    const a = Math.abs(off);
    let zone = "";
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (e) {
      zone = "";
    }
    return String(d.getFullYear()).padStart(4, "0") + "-" + pad2(d.getMonth() + 1) + "-" + pad2(d.getDate()) +
      " " + pad2(d.getHours()) + ":" + pad2(d.getMinutes()) + ":" + pad2(d.getSeconds()) +
      " UTC" + sign + pad2(Math.floor(a / 60)) + ":" + pad2(a % 60) + (zone ? " (" + zone + ")" : "");
  }

  // decode returns the fields oidkit inspect --json prints, plus the local
  // time and the three hex parts; or {ok: false, error} for bad input.
  function decode(input) {
    const p = parse(clean(input));
    if (!p.ok) return p;
    const h = p.hex;
    const unix = parseInt(h.slice(0, 8), 16); // 0..0xffffffff, never negative
    const counter = parseInt(h.slice(18, 24), 16);
    return {
      ok: true,
      id: h,
      timestamp: utcString(unix),
      local: localString(unix),
      unix: unix,
      random: h.slice(8, 18),
      counter: counter,
      parts: [h.slice(0, 8), h.slice(8, 18), h.slice(18, 24)],
    };
  }

  // parseTime reads RFC 3339 or Unix seconds like oidkit's TIME arguments and
  // returns {ok: true, seconds, fraction} or {ok: false, error}: seconds is
  // the second that holds the instant, fraction whether the instant lies after
  // its start (nanosecond precision, as Go reads it).
  const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
  function parseTime(name, s) {
    s = s.trim();
    let seconds;
    let fraction = false;
    if (/^[+-]?\d+$/.test(s)) {
      const big = BigInt(s);
      if (big < 0n || big > BigInt(MAX_SECONDS)) {
        return { ok: false, error: name + " " + goQuote(s) + ": outside the ObjectID range 1970-01-01T00:00:00Z..2106-02-07T06:28:15Z" };
      }
      seconds = Number(big);
    } else {
      const m = RFC3339.exec(s);
      const bad = { ok: false, error: name + " " + goQuote(s) + ": expected RFC 3339 (2023-11-14T22:13:20Z) or Unix seconds" };
      if (!m) return bad;
      const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map(Number);
      if (mo < 1 || mo > 12 || d < 1 || hh > 23 || mi > 59 || ss > 59) return bad;
      const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
      const dim = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
      if (d > dim) return bad;
      let off = 0;
      if (m[8] !== "Z") {
        const oh = Number(m[8].slice(1, 3)), om = Number(m[8].slice(4, 6));
        if (oh > 23 || om > 59) return bad;
        off = (oh * 60 + om) * 60 * (m[8][0] === "-" ? -1 : 1);
      }
      const ms = Date.UTC(y, mo - 1, d, hh, mi, ss);
      const utc = new Date(ms);
      if (y < 100) utc.setUTCFullYear(y); // Date.UTC maps years 0..99 to 1900..1999
      seconds = Math.floor(utc.getTime() / 1000) - off;
      fraction = m[7] !== undefined && /[1-9]/.test(m[7].slice(1, 10));
      if (seconds < 0 || seconds > MAX_SECONDS) {
        return { ok: false, error: name + " " + goQuote(s) + ": outside the ObjectID range 1970-01-01T00:00:00Z..2106-02-07T06:28:15Z" };
      }
    }
    return { ok: true, seconds: seconds, fraction: fraction };
  }

  // fromSeconds is the zero-tailed ID of a second (oid.FromTime).
  function fromSeconds(seconds) {
    return hex(seconds >>> 0, 8) + "0000000000000000";
  }

  // range is the "created between" helper, with the rules of oidkit range:
  // the window [from, to) in whole seconds, from rounded down and a
  // fractional to rounded up, so no ID made inside the window is left out.
  // The filter is {"_id":{"$gte":{"$oid":lo},"$lt":{"$oid":hi}}}; an empty
  // to means no upper bound, and a to inside the very last second, which no
  // $lt can hold, gives "$lte" ffffffffffffffffffffffff.
  function range(from, to) {
    from = String(from).trim();
    to = String(to).trim();
    const f = parseTime("from", from);
    if (!f.ok) return f;
    const lo = fromSeconds(f.seconds);
    const r = {
      ok: true,
      from: utcString(f.seconds),
      gte: lo,
      filter: '{"_id":{"$gte":{"$oid":"' + lo + '"}}}',
      shell: 'db.collection.find({_id: {$gte: ObjectId("' + lo + '")}})',
    };
    if (to === "") return r;
    const t = parseTime("to", to);
    if (!t.ok) return t;
    const end = t.seconds + (t.fraction ? 1 : 0);
    if (end <= f.seconds) {
      return { ok: false, error: "to " + goQuote(to) + ": expected a time after from " + goQuote(from) + " (the window is [from, to), whole seconds)" };
    }
    if (end > MAX_SECONDS) {
      r.lte = LAST_ID;
      r.to = utcString(MAX_SECONDS);
      r.filter = '{"_id":{"$gte":{"$oid":"' + lo + '"},"$lte":{"$oid":"' + LAST_ID + '"}}}';
      r.shell = 'db.collection.find({_id: {$gte: ObjectId("' + lo + '"), $lte: ObjectId("' + LAST_ID + '")}})';
      return r;
    }
    const hi = fromSeconds(end);
    r.lt = hi;
    r.to = utcString(end);
    r.filter = '{"_id":{"$gte":{"$oid":"' + lo + '"},"$lt":{"$oid":"' + hi + '"}}}';
    r.shell = 'db.collection.find({_id: {$gte: ObjectId("' + lo + '"), $lt: ObjectId("' + hi + '")}})';
    return r;
  }

  // exportText formats IDs for download: "text" is one per line; "json" is
  // a canonical Extended JSON array [{"$oid":"..."},...]; "ndjson" is one
  // {"$oid":"..."} per line. Every format ends with a newline.
  function exportText(ids, format) {
    switch (format) {
      case "text":
        return ids.map((id) => id + "\n").join("");
      case "json":
        return "[" + ids.map((id) => '{"$oid":"' + id + '"}').join(",") + "]\n";
      case "ndjson":
        return ids.map((id) => '{"$oid":"' + id + '"}\n').join("");
    }
    throw new RangeError("format " + JSON.stringify(format) + ": expected text, json or ndjson");
  }

  window.oidkit = Object.freeze({
    generate: generate,
    parse: parse,
    clean: clean,
    decode: decode,
    parseTime: parseTime,
    fromSeconds: fromSeconds,
    range: range,
    exportText: exportText,
    random: () => state.random,
  });
})();
