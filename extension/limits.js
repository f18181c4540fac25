// What one page may send: rates and sizes, so that no page can affect another tab (issue 30).
//
// The content script applies them per frame, first, where a page's posts arrive; the service
// worker applies them again per tab (all frames of a tab together) before anything goes to the
// bridge. A page over its rate is throttled (its telemetry dropped and counted, its latest
// snapshot held and sent when the rate allows); one that keeps on is cut off alone: its telemetry
// is no longer relayed until the document goes, its tools stay. A definition over its size is
// refused by name before it is sent; its neighbours are kept. Nothing here closes the link.
//
// A classic script with no exports, safe to load twice (like messages.js): manifest.json lists it
// before content.js, background/state.js imports it for its effect; both read the same frozen names from
// globalThis[Symbol.for('tabmcp.limits')]. docs/security.md (7) gives the numbers and why.
(() => {
  const KEY = Symbol.for('tabmcp.limits');
  if (globalThis[KEY]) return;

  const KIB = 1024;
  const MIB = 1024 * KIB;

  /** Sizes, in bytes of JSON text in UTF-8 (as it crosses the link; `utf8Bytes`), save `chunk`. */
  const SIZE = Object.freeze({
    /** One tool or category definition. The bridge accepts descriptions up to 8,000 characters
     * and schemas up to 64 KiB: any definition it could register fits well inside this. */
    definition: 256 * KIB,
    /** One document's definitions together (tools and categories); those beyond are refused. */
    document: 4 * MIB,
    /** One tab (its document and its frames) in a `tab.update` or a sync part: past it, the
     * tab is sent without its definitions (one tab can never make a frame too large). */
    tab: 6 * MIB,
    /** A sync is sent in parts of at most this much (`tabs.sync` with `more`). */
    syncPart: 6 * MIB,
    /** One frame to the bridge (whose limit is 16 MiB): batched messages are split to fit, and
     * a single message larger than this is not sent (a call's result becomes a TOO_LARGE error). */
    frame: 8 * MIB,
    /** One telemetry batch from a page (its own capture sends at most 512 KiB). */
    telemetry: 1 * MIB,
    /** Characters (UTF-16 units) of a tabs' data message in one `chunk` to the bridge, and the bytes
     * the socket may hold buffered (`bufferedAmount`) before the next goes (background/tab_lane.js):
     * what an answer waits behind at most. */
    chunk: 64 * KIB,
  });

  /**
   * Rates, in messages per second with a burst, and how long a sender may stay over them before
   * it is cut off. The page's own capture sends a telemetry batch every 250 ms (every 50 ms while
   * errors come), its agent a snapshot at most every 25 ms: a page that only uses the API never
   * meets them.
   */
  const RATE = Object.freeze({
    /** Telemetry batches from one frame (content script) and one tab (worker): cut off after 3 s
     * over the rate, or after 4,000 refused (100 s of the rate; what arrives queued comes fast). */
    telemetry: Object.freeze({ rate: 40, burst: 80, cutAfterMs: 3000, cutAfterRefused: 4000 }),
    /** Snapshots and form lists from one frame: more are coalesced (the latest is sent later). */
    snapshot: Object.freeze({ rate: 20, burst: 40 }),
  });

  /** A refusal window: refusals less than this far apart belong to one episode of flooding. */
  const EPISODE_GAP_MS = 1000;

  /**
   * Bytes of a JSON text in UTF-8: its length when that alone proves it fits, else counted.
   * @param {string} text @param {number} limit
   */
  function bytesOver(text, limit) {
    if (text.length * 3 <= limit) return 0; // a UTF-16 unit is at most 3 bytes of UTF-8
    const bytes = utf8Bytes(text);
    return bytes > limit ? bytes : 0;
  }

  const NON_ASCII = /[\u0080-\uffff]/; // any UTF-16 unit past ASCII (surrogates included)

  /**
   * Bytes of a text in UTF-8, counted, never encoded: encoding a tab's megabytes to count them held
   * the worker (every other tab's calls) for that long, three times per update. An ASCII text (most
   * JSON) is its length, found by one scan; past its first other unit, each unit adds what it takes
   * beyond one byte: 2 bytes below U+0800, a surrogate pair 4 (2 units), any other unit 3 (a lone
   * surrogate too, as U+FFFD, though JSON.stringify writes one as an escape). @param {string} text
   */
  function utf8Bytes(text) {
    const first = text.search(NON_ASCII);
    if (first < 0) return text.length;
    const n = text.length;
    let bytes = n;
    for (let i = first; i < n; i++) {
      const unit = text.charCodeAt(i);
      if (unit < 0x80) continue;
      if (unit < 0x800) bytes += 1;
      else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        bytes += 2; // a pair: 4 bytes for its 2 units
        i++;
      } else bytes += 2;
    }
    return bytes;
  }

  /** The JSON text of a value, or null when it has none (a cycle, a BigInt). */
  function jsonOf(value) {
    try {
      return JSON.stringify(value) ?? 'null';
    } catch {
      return null;
    }
  }

  /** Bytes as a person reads them: 20.0 MiB, 256 KiB. @param {number} n */
  function showBytes(n) {
    return n >= MIB ? `${(n / MIB).toFixed(1)} MiB` : `${Math.ceil(n / KIB)} KiB`;
  }

  /**
   * A token bucket: `take()` is false once the sender is past `rate`/s beyond `burst`.
   * @param {number} rate @param {number} burst @param {() => number} [now] milliseconds
   */
  function createBucket(rate, burst, now = () => performance.now()) {
    let tokens = burst;
    let last = now();
    return {
      take(n = 1) {
        const t = now();
        tokens = Math.min(burst, tokens + ((t - last) / 1000) * rate);
        last = t;
        if (tokens < n) return false;
        tokens -= n;
        return true;
      },
    };
  }

  /** What a flood rule says of one message. */
  const VERDICT = Object.freeze({ pass: 'pass', throttled: 'throttled', cut: 'cut' });

  /**
   * One sender's rate rule: messages past the rate are refused (`throttled`); a sender refused
   * without a pause of EPISODE_GAP_MS for `cutAfterMs`, or `cutAfterRefused` times, is cut off for
   * good (`cut`, and `onCut` once). `refused` counts every message it did not pass.
   * @param {{rate: number, burst: number, cutAfterMs?: number, cutAfterRefused?: number}} rule
   * @param {{onCut?: () => void, now?: () => number}} [opts]
   */
  function createFloodRule(rule, { onCut, now = () => performance.now() } = {}) {
    const bucket = createBucket(rule.rate, rule.burst, now);
    let episodeStart = -1;
    let episodeRefused = 0;
    let lastRefusal = -Infinity;
    let cut = false;
    const self = {
      refused: 0,
      get cut() {
        return cut;
      },
      /** Cut off now (another rule saw the flood first). */
      cutOff() {
        cut = true;
      },
      /** @returns {'pass' | 'throttled' | 'cut'} */
      admit() {
        if (cut) {
          self.refused++;
          return VERDICT.cut;
        }
        if (bucket.take()) return VERDICT.pass;
        self.refused++;
        const t = now();
        if (t - lastRefusal > EPISODE_GAP_MS) {
          episodeStart = t;
          episodeRefused = 0;
        }
        lastRefusal = t;
        episodeRefused++;
        const long = rule.cutAfterMs !== undefined && t - episodeStart >= rule.cutAfterMs;
        const many = rule.cutAfterRefused !== undefined && episodeRefused >= rule.cutAfterRefused;
        if (long || many) {
          cut = true;
          if (onCut) onCut();
          return VERDICT.cut;
        }
        return VERDICT.throttled;
      },
    };
    return self;
  }

  /**
   * A document's tools and categories within SIZE.definition each and SIZE.document together;
   * the others refused, by name, with why. `tools` and `categories` are the page's raw lists.
   * @param {unknown} tools @param {unknown} categories
   * `texts` has each kept list's definitions as the JSON texts they were measured by (the worker writes a tab's
   * snapshot with them instead of serializing its megabytes again); `bytes` their UTF-8 bytes together, when
   * they were counted (-1 when 3 bytes a UTF-16 unit proved they fit without counting: the worker counts
   * them if a tab's size ever needs it), so that no text is counted twice.
   * @returns {{tools: any[], categories: any[], refused: Array<{kind: string, name: string, bytes: number, limit: number}>,
   *   texts: {tools: string[], categories: string[]}, bytes: {tools: number, categories: number}}}
   */
  function fitDefinitions(tools, categories) {
    /** @type {Array<{kind: string, name: string, bytes: number, limit: number}>} */
    const refused = [];
    // The document's bytes: those of the kept definitions counted so far (`counted`; by kind, `listed`),
    // and the texts kept without counting (`uncounted`) while 3 bytes a UTF-16 unit proved they fit;
    // once that bound ran out (`counting`), every text is counted as it comes, each once.
    let counting = false;
    let counted = 0;
    const listed = { tool: 0, category: 0 };
    /** @type {Array<[string, string]>} */
    let uncounted = [];
    let uncountedUnits = 0;
    const texts = { tool: /** @type {string[]} */ ([]), category: /** @type {string[]} */ ([]) };
    const fit = (list, kind) => {
      if (!Array.isArray(list)) return [];
      const kept = [];
      for (const item of list) {
        const name = String((item && typeof item === 'object' && item.name) || '?').slice(0, 128);
        const text = jsonOf(item);
        if (text === null) continue; // not JSON: the bridge could not read it either
        let bytes = text.length * 3 <= SIZE.definition ? -1 : utf8Bytes(text); // -1: fits, not counted
        if (bytes > SIZE.definition) {
          refused.push({ kind, name, bytes, limit: SIZE.definition });
          continue;
        }
        if (counting || counted + (uncountedUnits + text.length) * 3 > SIZE.document) {
          // The bound proves nothing: the document's bytes, counted (each text at most once).
          counting = true;
          for (const [k, t] of uncounted) {
            const n = utf8Bytes(t);
            counted += n;
            listed[k] += n;
          }
          uncounted = [];
          uncountedUnits = 0;
          if (bytes < 0) bytes = utf8Bytes(text);
          if (counted + bytes > SIZE.document) {
            refused.push({ kind, name, bytes: counted + bytes, limit: SIZE.document });
            continue;
          }
          counted += bytes;
          listed[kind] += bytes;
        } else if (bytes < 0) {
          uncounted.push([kind, text]);
          uncountedUnits += text.length;
        } else {
          counted += bytes;
          listed[kind] += bytes;
        }
        kept.push(item);
        texts[kind].push(text);
      }
      return kept;
    };
    const keptTools = fit(tools, 'tool');
    const keptCategories = fit(categories, 'category');
    const bytesOf = (kind) => (counting || !texts[kind].length ? listed[kind] : -1);
    return {
      tools: keptTools, categories: keptCategories, refused,
      texts: { tools: texts.tool, categories: texts.category },
      bytes: { tools: bytesOf('tool'), categories: bytesOf('category') },
    };
  }

  /** Kinds of lost telemetry counted by name; past them, or for a name no capture uses, 'other'. */
  const LOST_KINDS = 32;

  /**
   * Count a batch's events as lost, by kind, into `counts`: a page choosing its events' kinds
   * cannot grow the counts past LOST_KINDS names. @param {Record<string, number>} counts @param {unknown} events
   */
  function countLost(counts, events) {
    if (!Array.isArray(events)) return;
    for (const e of events) {
      let kind = e && typeof e.kind === 'string' && e.kind.length <= 32 ? e.kind : 'other';
      if (!(kind in counts) && Object.keys(counts).length >= LOST_KINDS) kind = 'other';
      counts[kind] = (counts[kind] || 0) + 1;
    }
  }

  /** Characters kept of a page's title and URL, states kept and their length, frame grants kept. */
  const FIELDS = Object.freeze({ title: 1000, url: 16 * KIB, states: 100, state: 128, frameTools: 64, origin: 2048 });

  /**
   * A snapshot's other fields, bounded (the bridge keeps less of each: 500 characters of a title,
   * 64 states): a page cannot make a snapshot large with its title, URL or states either.
   * @param {any} msg
   */
  function pageFields(msg) {
    const strings = (list, n, len) => (Array.isArray(list) ? list : []).filter((x) => typeof x === 'string' && x.length <= len).slice(0, n);
    return {
      url: String(msg.url || '').slice(0, FIELDS.url),
      title: String(msg.title || '').slice(0, FIELDS.title),
      native: !!msg.native,
      states: strings(msg.states, FIELDS.states, FIELDS.state),
      frameTools: strings(msg.frameTools, FIELDS.frameTools, FIELDS.origin),
    };
  }

  /** Why a definition was refused, in words (the code, TOO_LARGE, goes beside it). */
  function refusalText(r) {
    return r.limit === SIZE.document
      ? `${r.kind} ${JSON.stringify(r.name)} refused: this page's definitions would exceed ${showBytes(r.limit)} with it`
      : `${r.kind} ${JSON.stringify(r.name)} refused: its definition is ${showBytes(r.bytes)}, over the ${showBytes(r.limit)} limit`;
  }

  Object.defineProperty(globalThis, KEY, {
    value: Object.freeze({
      SIZE,
      RATE,
      VERDICT,
      bytesOver,
      utf8Bytes,
      countLost,
      jsonOf,
      showBytes,
      createBucket,
      createFloodRule,
      fitDefinitions,
      pageFields,
      refusalText,
    }),
  });
})();
