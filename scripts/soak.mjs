#!/usr/bin/env node
/**
 * Soak: N mixed tool calls over stdio against the built binary, every answer checked, and the
 * server process's resident memory compared between the end and the first 1,000 calls
 * (issue 4: "10,000 mixed calls leave RSS within 10% of its level after the first 1,000").
 *
 *   npm run build && node scripts/soak.mjs [--calls 10000] [--concurrency 4] [--seed 1]
 *
 * Other flags: --pin 2026-07-28 (per-request revision instead of the 2025-11-25 session, so no
 * per-session parse cache), --tools xml_query,xml_format (only those tools), --sample-every N
 * (a GC'd RSS checkpoint every N calls), --smaps 1 (where the resident memory is, at each
 * checkpoint), --gc 0, --max-growth, --max-buffer-growth, --baseline, --bin, --allocator. A
 * deterministic call on every 500th checks that an output-budget cut never splits a surrogate pair.
 *
 * The server runs as the README recommends for a long-running server, with glibc's mmap
 * threshold fixed at 1 MiB (`MALLOC_MMAP_THRESHOLD_=1048576`): by default glibc raises that
 * threshold to the largest block freed so far and then keeps up to twice it free in every
 * malloc arena, which reads as 20–40 MiB of growth over a run that is not a leak (docs/testing.md).
 * `--allocator glibc` runs with glibc's defaults instead; MALLOC_* or GLIBC_TUNABLES variables in
 * the environment are passed on and replace the setting.
 *
 * Not a unit test: it takes minutes. Exit 0 only when every answer is right, no call was lost and
 * the memory did not grow. Half the calls go by document handle (ADR 0016), and the session holds
 * every text it was sent, up to 32 MiB: memory the design keeps on purpose and bounds, which
 * grows over a run (~8 → ~17 MiB in 10,000 calls) without being a leak. So what is judged is
 * RSS less those held texts (ADR 0021), and the held bytes are reported beside it. The client
 * knows them without asking the server: `HandleMix` applies the store's rules to what it sent
 * (held when sent, used when named, least recently used evicted past the bound, let go when
 * refused; test/soak-held-mirror.test.ts checks it against the store after every call). It is
 * what the design holds, not what the server says it holds, so a store that keeps more than
 * that, or anything else, still counts. Two judgments:
 * - the level of RSS less held texts at the end is within --max-growth (default 10%) of its
 *   level after --baseline calls (default 1,000). A level is the median of --level-samples GC'd
 *   samples (default 10) taken --level-spacing calls apart (default 100): from the baseline on,
 *   and up to the end. The medians smooth what single samples catch at a recycle (ADR 0006: a
 *   fresh worker's heap is ~13 MiB lower until it has parsed a large document), and a leak moves
 *   them just the same. The single-sample ratio and the RSS levels themselves are reported.
 * - the main thread's live array buffers after a full GC, less the held texts (which are array
 *   buffers there), grow by at most --max-buffer-growth MiB (default 2) between the same levels.
 *   That figure is V8's exact count, not the allocator's: a leak of a few MiB that free memory
 *   already resident in malloc's arenas hides from RSS (a released text kept by mistake: RSS
 *   judged 1.039 in one run, 1.162 in another) shows here at once (+15.8 MiB; 6.9 → 7.1–7.4 MiB
 *   without it). Needs the GC (not with --gc 0).
 * RSS is VmRSS of the server child from /proc (the engine's worker threads live in that process),
 * read after the in-flight calls drain. An un-collected V8 heap swings RSS by ±15% between two
 * samples of the same run, so by default the server runs with `--inspect=127.0.0.1:0` and each
 * sample is taken after a full garbage collection of the main thread and every engine worker
 * (HeapProfiler.collectGarbage over the inspector, loopback only); the raw figure is reported
 * too. `--gc 0` turns this off. Every loop is bounded in count and time
 * (--max-seconds). Documents are generated here, deterministically from --seed; nothing is read
 * from disk or the network.
 *
 * The document generators and answer checks are exported for scripts/load.mjs.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

export const DEFAULT_BIN = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/* ------------------------------------------------------------------------------------------ */
/* Deterministic randomness                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** mulberry32: a small seeded generator, so call i is the same call on every run. */
export function rng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

/** A seed for call `index` that does not depend on the order calls run in. */
export const callSeed = (seed, index) => (Math.imul(seed ^ 0x9e3779b9, 2654435761) + index * 40503) >>> 0;

/* ------------------------------------------------------------------------------------------ */
/* Documents: a small model serialised by hand, so every answer is known in advance            */
/* ------------------------------------------------------------------------------------------ */

const WORDS = [
  'alpha',
  'bravo',
  'Café',
  'delta',
  'échelle',
  'fox',
  'gamma',
  '中文',
  'naïve',
  'Zürich',
  'tom & jerry',
  'a<b',
  'x>y',
  'say "hi"',
  "it's",
  'smile 😀',
  'rocket 🚀',
  'omega',
];
const CATEGORIES = ['book', 'tool', 'food', 'toy'];
export const FEED_NS = 'urn:example:feed';
export const META_NS = 'urn:example:meta';

const escapeText = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function words(r, count) {
  const out = [];
  for (let i = 0; i < count; i++) out.push(r.pick(WORDS));
  return out.join(' ');
}

/**
 * kind 'catalog': <catalog><item id cat price><name/><qty/>[<note/>]</item>...</catalog>
 * kind 'feed':    <feed xmlns=FEED xmlns:m=META><entry m:id><title/><m:rank/>[<note/>]</entry>...</feed>
 * Children are { tag, text } (text null = empty element).
 */
function makeDocument(kind, targetBytes, seed) {
  const r = rng(seed);
  const records = [];
  let bytes = 40;
  while (bytes < targetBytes || records.length === 0) {
    const i = records.length;
    const long = r.chance(0.03);
    const text = words(r, long ? r.int(20, 60) : r.int(1, 3));
    const number = r.int(0, 999);
    const note = i % 7 === 3;
    let record;
    if (kind === 'catalog') {
      const cat = r.pick(CATEGORIES);
      const price = r.int(1, 99_999);
      record = {
        tag: 'item',
        attrs: `id="i${i}" cat="${cat}" price="${price}"`,
        fields: { id: `i${i}`, cat, price, text, number, note },
        children: [
          { tag: 'name', text },
          { tag: 'qty', text: String(number) },
          ...(note ? [{ tag: 'note', text: null }] : []),
        ],
      };
    } else {
      record = {
        tag: 'entry',
        attrs: `m:id="e${i}"`,
        fields: { id: `e${i}`, text, number, note },
        children: [
          { tag: 'title', text },
          { tag: 'm:rank', text: String(number) },
          ...(note ? [{ tag: 'note', text: null }] : []),
        ],
      };
    }
    records.push(record);
    bytes += recordBytes(record);
  }
  const doc =
    kind === 'catalog'
      ? { kind, root: 'catalog', rootOpen: '<catalog>', records }
      : { kind, root: 'feed', rootOpen: `<feed xmlns="${FEED_NS}" xmlns:m="${META_NS}">`, records };
  doc.xml = serialize(doc, 0, 'self-closing');
  doc.facts = facts(doc);
  return doc;
}

function recordBytes(record) {
  let n = record.tag.length * 2 + record.attrs.length + 6;
  for (const child of record.children) n += child.tag.length * 2 + 5 + (child.text ?? '').length * 1.2;
  return n;
}

function emptyTag(tag, style) {
  if (style === 'spaced') return `<${tag} />`;
  if (style === 'expanded') return `<${tag}></${tag}>`;
  return `<${tag}/>`;
}

/** What xml_format must return: libxml2's serialisation with `indent` spaces (0 = minified). */
export function serialize(doc, indent, style, records = doc.records) {
  const nl = indent > 0 ? '\n' : '';
  const pad1 = ' '.repeat(indent);
  const pad2 = ' '.repeat(indent * 2);
  const parts = [doc.rootOpen, nl];
  for (const record of records) {
    parts.push(pad1, `<${record.tag}${record.attrs ? ` ${record.attrs}` : ''}>`, nl);
    for (const child of record.children) {
      parts.push(
        pad2,
        child.text === null
          ? emptyTag(child.tag, style)
          : `<${child.tag}>${escapeText(child.text)}</${child.tag}>`,
        nl,
      );
    }
    parts.push(pad1, `</${record.tag}>`, nl);
  }
  parts.push(`</${doc.root}>`);
  return parts.join('');
}

function facts(doc) {
  const counts = new Map([[doc.root, 1]]);
  let attributes = 0;
  let texts = 0;
  let notes = 0;
  const add = (name) => counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const record of doc.records) {
    add(record.tag);
    attributes += doc.kind === 'catalog' ? 3 : 1;
    for (const child of record.children) {
      add(child.tag);
      if (child.text !== null && child.text !== '') texts++;
      if (child.tag === 'note') notes++;
    }
  }
  const totalElements = [...counts.values()].reduce((a, b) => a + b, 0);
  const f = doc.records.map((record) => record.fields);
  const result = {
    n: doc.records.length,
    counts,
    totalElements,
    attributes,
    nodes: totalElements + attributes + texts,
    notes,
    maxDepth: texts > 0 ? 4 : 3,
    texts: f.map((x) => x.text),
    numbers: f.map((x) => String(x.number)),
    ids: f.map((x) => x.id),
    numberSum: f.reduce((a, x) => a + x.number, 0),
  };
  if (doc.kind === 'catalog') {
    result.cats = f.map((x) => x.cat);
    result.priceSum = f.reduce((a, x) => a + x.price, 0);
  } else {
    result.namespaces = [
      { uri: FEED_NS, prefixes: [null], elements: totalElements - doc.records.length },
      { uri: META_NS, prefixes: ['m'], elements: doc.records.length },
    ];
  }
  return result;
}

/** string(/): the concatenation of every text node, in document order. */
function allText(doc) {
  if (doc.allText === undefined) {
    doc.allText = doc.records.map((record) => record.children.map((c) => c.text ?? '').join('')).join('');
  }
  return doc.allText;
}

/** The same catalog validated by every xml_validate call on a catalog. */
export const CATALOG_XSD = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="catalog">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="item" minOccurs="0" maxOccurs="unbounded">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="name" type="xs:string"/>
              <xs:element name="qty" type="xs:integer"/>
              <xs:element name="note" minOccurs="0"><xs:complexType/></xs:element>
            </xs:sequence>
            <xs:attribute name="id" type="xs:ID" use="required"/>
            <xs:attribute name="cat" use="required">
              <xs:simpleType>
                <xs:restriction base="xs:string">
                  <xs:enumeration value="book"/><xs:enumeration value="tool"/>
                  <xs:enumeration value="food"/><xs:enumeration value="toy"/>
                </xs:restriction>
              </xs:simpleType>
            </xs:attribute>
            <xs:attribute name="price" type="xs:positiveInteger" use="required"/>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>`;

/**
 * The documents calls are drawn from: sizes spread log-uniformly from ~1 KB to ~200 KB, plus a
 * few of ~2 MB.
 */
export function buildCorpus({ seed = 1, regular = 36, huge = 3 } = {}) {
  const r = rng(seed);
  const docs = [];
  for (let i = 0; i < regular; i++) {
    const target = Math.round(1024 * 200 ** (i / (regular - 1)));
    docs.push(makeDocument(i % 3 === 2 ? 'feed' : 'catalog', target, r.int(1, 2 ** 31)));
  }
  const big = [];
  for (let i = 0; i < huge; i++) {
    big.push(makeDocument(i === 1 ? 'feed' : 'catalog', 2 * 1024 * 1024, r.int(1, 2 ** 31)));
  }
  return { docs, big };
}

/* ------------------------------------------------------------------------------------------ */
/* Expected answers                                                                              */
/* ------------------------------------------------------------------------------------------ */

const DEFAULT_MAX_CHARS = 20_000;
const MAX_VALUES = 1_000;

const textOf = (result) => result?.content?.[0]?.text;

/** A string with a lone UTF-16 surrogate (not a character; cannot be encoded as UTF-8). */
const hasLoneSurrogate = (text) => typeof text === 'string' && !text.isWellFormed();

function deepStrings(value, visit) {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const v of value) deepStrings(v, visit);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) deepStrings(v, visit);
}

/** Ends a value the output budget cut part-way (src/engine/query.ts). */
const CUT_MARK = '…[cut]';

/**
 * The output budget (docs/behaviour.md §6): values in document order until 1,000 values or `maxChars`
 * characters; the value that crosses the character budget is cut so that it and `…[cut]` fill
 * what is left (left out when the mark would not fit); `count` stays exact. A cut must not split
 * a surrogate pair, so where the naive cut would, the cut one code unit shorter or longer is the
 * accepted answer.
 */
function budgeted(values, maxChars) {
  const out = [];
  let chars = 0;
  for (const value of values) {
    const remaining = maxChars - chars;
    if (out.length >= MAX_VALUES || remaining <= 0) return { values: out, truncated: true, alternatives: [] };
    if (value.length > remaining) {
      if (remaining <= CUT_MARK.length) return { values: out, truncated: true, alternatives: [] };
      const keep = remaining - CUT_MARK.length;
      const naive = value.slice(0, keep);
      if (!hasLoneSurrogate(naive)) {
        return { values: [...out, naive + CUT_MARK], truncated: true, alternatives: [] };
      }
      return {
        values: [...out, value.slice(0, keep - 1) + CUT_MARK],
        truncated: true,
        alternatives: [[...out, value.slice(0, keep + 1) + CUT_MARK]],
      };
    }
    out.push(value);
    chars += value.length;
  }
  return { values: out, truncated: false, alternatives: [] };
}

/** Every answer must be well-formed Unicode wherever it appears. */
function unicodeProblem(result) {
  let bad;
  deepStrings(result, (s) => {
    if (bad === undefined && hasLoneSurrogate(s)) {
      const at = s.search(/\p{Surrogate}/u);
      bad = `answer contains a lone surrogate U+${s.charCodeAt(at).toString(16).toUpperCase()} at index ${at} (…${JSON.stringify(s.slice(Math.max(0, at - 12), at + 1))})`;
    }
  });
  return bad;
}

/**
 * The text of an answer's values (docs/behaviour.md §2, src/tools/answer-text.ts): a scalar as
 * itself; a node-set of one node as its value; several under a line giving their count; none,
 * or only empty values, in words. (The mix's values never span lines, and are empty only all
 * together, so none is numbered.)
 */
function valuesText(type, count, values, xpath) {
  if (type !== 'node-set') return values[0] ?? '';
  if (count === 0) return `No nodes matched \`${xpath}\`.`;
  if (values.every((v) => v === '')) {
    return `${count} node${count === 1 ? '' : 's'} matched \`${xpath}\`, all with empty text.`;
  }
  if (count === 1) return values.join('\n');
  return `${count} nodes matched \`${xpath}\`:\n${values.join('\n')}`;
}

/**
 * An xml_query answer: type, exact count, the values within budget, and the text built from them,
 * then the truncation note where the budget cut, then `hint` (the sentence that explains an
 * empty answer, docs/adr/0018) where one is expected, and nothing else.
 */
function expectQuery(type, allValues, { xpath, maxChars = DEFAULT_MAX_CHARS, hint }) {
  const count = type === 'node-set' ? allValues.length : 1;
  const cut = budgeted(allValues, maxChars);
  return (result) => {
    if (result.isError) return `unexpected isError: ${textOf(result)}`;
    const sc = result.structuredContent;
    const candidates = [cut.values, ...cut.alternatives];
    const matching = candidates.find((values) =>
      isDeepStrictEqual(sc, { type, count, values, ...(cut.truncated ? { truncated: true } : {}) }),
    );
    if (!matching) {
      const got = sc ? { ...sc, values: summary(sc.values) } : sc;
      const want = { type, count, values: summary(cut.values), truncated: cut.truncated || undefined };
      const lone = unicodeProblem(sc);
      return `${lone ? `${lone}; ` : ''}structuredContent ${JSON.stringify(got)} != expected ${JSON.stringify(want)}`;
    }
    const base = valuesText(type, count, matching, xpath);
    let text = textOf(result);
    if (hint !== undefined) {
      if (typeof text !== 'string' || !text.endsWith(`\n${hint}`)) {
        return `text does not end with the hint ${JSON.stringify(clip(hint))}: ${JSON.stringify(clip(text))}`;
      }
      text = text.slice(0, -(hint.length + 1));
    }
    if (!cut.truncated) {
      if (text !== base) return `text ${JSON.stringify(clip(text))} != ${JSON.stringify(clip(base))}`;
    } else {
      if (typeof text !== 'string' || !text.startsWith(`${base}\n[`) || !text.endsWith(']')) {
        return `truncated text is not the values and a note: ${JSON.stringify(clip(text))}`;
      }
      const note = text.slice(base.length + 1);
      if (note.includes('\n')) return `truncation note spans lines: ${JSON.stringify(clip(note))}`;
      const shown = matching.length;
      const cutShown = matching.filter((v) => v.endsWith(CUT_MARK)).length;
      if (type === 'node-set' && shown < count && !note.includes(`Showing ${shown} of ${count} values`)) {
        return `truncation note does not give ${shown} of the exact count ${count}: ${JSON.stringify(note)}`;
      }
      if (type === 'node-set' && cutShown > 0 && !note.includes(`${cutShown} of the ${shown} shown cut`)) {
        return `truncation note does not say a value was cut: ${JSON.stringify(note)}`;
      }
      if (type !== 'node-set' && !note.startsWith('[The value was cut')) {
        return `truncation note does not say the value was cut: ${JSON.stringify(note)}`;
      }
    }
    return undefined;
  };
}

const summary = (values) =>
  Array.isArray(values)
    ? values.length <= 4
      ? values.map(clip)
      : [...values.slice(0, 2).map(clip), `…${values.length} values…`, clip(values.at(-1))]
    : values;
const clip = (text) => (typeof text === 'string' && text.length > 120 ? `${text.slice(0, 117)}…` : text);

function expectError(pattern, extra) {
  return (result) => {
    if (!result.isError)
      return `expected isError matching ${pattern}, got ${JSON.stringify(clip(textOf(result)))}`;
    const text = textOf(result);
    if (!pattern.test(text ?? ''))
      return `error text ${JSON.stringify(clip(text))} does not match ${pattern}`;
    return extra?.(result);
  };
}

/* ------------------------------------------------------------------------------------------ */
/* The call mix                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/**
 * One call: { tool, args, label, check(result) → undefined | reason }. `hugeRate` is the share
 * of calls made on a ~2 MB document; `doc`, when given, is the document of every call.
 */
export function planCall(corpus, seed, { hugeRate = 0.01, tools, doc: only } = {}) {
  if (tools) {
    // Only some tools: draw again (boundedly) until the call is one of them.
    for (let attempt = 0; attempt < 1000; attempt++) {
      const plan = planCall(corpus, (seed + attempt * 7919) >>> 0, { hugeRate, doc: only });
      if (tools.includes(plan.tool)) return plan;
    }
    throw new Error(`no call of ${tools.join(', ')} drawn`);
  }
  const r = rng(seed);
  const huge = only ? corpus.big.includes(only) : r.chance(hugeRate);
  const doc = only ?? r.pick(huge ? corpus.big : corpus.docs);
  const roll = r.next();
  if (roll < 0.5) return planQuery(r, doc, huge);
  if (roll < 0.62) return planInspect(doc);
  if (roll < 0.75) return planCheck(r, doc, huge);
  if (roll < 0.88) return planValidate(r, doc, huge);
  return planFormat(r, doc);
}

/**
 * An xml_inspect answer (docs/behaviour.md §2): root, depth, totals, each element name with its
 * count and what its elements hold, the namespaces with their element and attribute counts, and
 * the outline of distinct paths, all known from the model; the text gives the same lines.
 */
function planInspect(doc) {
  const f = doc.facts;
  const catalog = doc.kind === 'catalog';
  const [rootName, record, name, number] = catalog
    ? ['catalog', 'item', 'name', 'qty']
    : ['feed', 'entry', 'title', 'm:rank'];
  const attrs = catalog ? '@id @cat @price' : '@m:id';
  const recordHolds = `${attrs}; ${name} ${number}${f.notes > 0 ? ` note×${f.notes}` : ''}`;
  const details = { [record]: recordHolds, [name]: 'text', [number]: 'text', [rootName]: `${record}×${f.n}` };
  const elements = [...f.counts].map(([element, count]) => ({ name: element, count }));
  const namespaces = catalog
    ? []
    : [
        { uri: FEED_NS, prefixes: [null], elements: f.totalElements - f.n },
        { uri: META_NS, prefixes: ['m'], elements: f.n, attributes: f.n },
      ];
  const outline = [`/${rootName}: ${record}×${f.n}`, `/${rootName}/${record} ×${f.n}: ${recordHolds}`];
  const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    tool: 'xml_inspect',
    args: { xml: doc.xml },
    label: `inspect.${doc.kind}`,
    check(result) {
      if (result.isError) return `unexpected isError: ${textOf(result)}`;
      const sc = result.structuredContent ?? {};
      const want = {
        root: doc.root,
        maxDepth: f.maxDepth,
        totalElements: f.totalElements,
        attributes: f.attributes,
        elements: [...elements].sort(byName),
        details,
        namespaces,
        outline,
        distinctPaths: f.notes > 0 ? 5 : 4,
      };
      const got = { ...sc, elements: [...(sc.elements ?? [])].sort(byName) };
      if (!isDeepStrictEqual(got, want)) {
        return `structuredContent ${clip(JSON.stringify(sc))} != ${clip(JSON.stringify(want))}`;
      }
      const text = (textOf(result) ?? '').split('\n');
      const lines = [
        `Root element: ${doc.root}`,
        `Maximum depth: ${f.maxDepth}`,
        `Elements: ${f.totalElements} in ${elements.length} names; attributes: ${f.attributes}`,
        ...outline,
      ];
      for (const { name: element, count } of elements) {
        lines.push(`  ${element}: ${count}${details[element] ? ` — ${details[element]}` : ''}`);
      }
      const missing =
        lines.find((line) => !text.includes(line)) ??
        namespaces.map((ns) => ns.uri).find((uri) => !text.some((l) => l.startsWith(`  ${uri} — `)));
      return missing === undefined ? undefined : `text lacks ${JSON.stringify(missing)}`;
    },
  };
}

function planCheck(r, doc, huge) {
  const f = doc.facts;
  const roll = r.next();
  if (huge || roll < 0.75) {
    return {
      tool: 'xml_check',
      args: { xml: doc.xml },
      label: 'check.well-formed',
      check(result) {
        if (result.isError) return `unexpected isError: ${textOf(result)}`;
        const want = { wellFormed: true, elements: f.totalElements, nodes: f.nodes };
        if (!isDeepStrictEqual(result.structuredContent, want)) {
          return `structuredContent ${JSON.stringify(result.structuredContent)} != ${JSON.stringify(want)}`;
        }
        const text = `Well-formed: ${f.nodes} nodes (${f.totalElements} elements).`;
        return textOf(result) === text ? undefined : `text ${JSON.stringify(textOf(result))} != ${text}`;
      },
    };
  }
  if (roll < 0.9) {
    const { xml, line } = mismatchedTag(r, doc);
    return {
      tool: 'xml_check',
      args: { xml },
      label: 'check.malformed-tag',
      check: expectError(
        /not well-formed XML: line \d+, column \d+: Opening and ending tag mismatch/,
        (res) => {
          const sc = res.structuredContent;
          if (sc?.wellFormed !== false || sc?.error?.line !== line || typeof sc.error.column !== 'number') {
            return `expected { wellFormed: false, error.line: ${line} }, got ${JSON.stringify(sc)}`;
          }
          return textOf(res).includes(`line ${line}, column ${sc.error.column}:`)
            ? undefined
            : `text does not give line ${line}`;
        },
      ),
    };
  }
  return {
    tool: 'xml_check',
    args: { xml: doc.xml.slice(0, -(doc.root.length + 3)) },
    label: 'check.truncated',
    check: expectError(/not well-formed XML: line 1, column \d+: Premature end of data/, (res) =>
      res.structuredContent?.wellFormed === false && res.structuredContent?.error?.line === 1
        ? undefined
        : `structuredContent ${JSON.stringify(res.structuredContent)}`,
    ),
  };
}

/** The document indented by one space, with the `j`-th record's number field closed by a wrong tag. */
function mismatchedTag(r, doc) {
  const lines = serialize(doc, 1, 'self-closing').split('\n');
  const tag = doc.kind === 'catalog' ? 'qty' : 'm:rank';
  const j = r.int(0, doc.records.length - 1);
  let seen = -1;
  const index = lines.findIndex((line) => line.startsWith(`  <${tag}>`) && ++seen === j);
  lines[index] = lines[index].replace(`</${tag}>`, `</${tag}x>`);
  return { xml: lines.join('\n'), line: index + 1 };
}

function planValidate(r, doc, huge) {
  if (doc.kind === 'feed') {
    return {
      tool: 'xml_validate',
      args: { xml: doc.xml, xsd: CATALOG_XSD },
      label: 'validate.wrong-root',
      check: expectError(/^Invalid: 1 violation of the schema\./, (res) => {
        const v = res.structuredContent?.violations;
        return res.structuredContent?.valid === false &&
          v?.length === 1 &&
          /No matching global declaration/.test(v[0].message)
          ? undefined
          : `structuredContent ${JSON.stringify(res.structuredContent)}`;
      }),
    };
  }
  const roll = r.next();
  if (huge || roll < 0.6) {
    return {
      tool: 'xml_validate',
      args: { xml: doc.xml, xsd: CATALOG_XSD },
      label: 'validate.valid',
      check(result) {
        if (result.isError) return `unexpected isError: ${clip(textOf(result))}`;
        return isDeepStrictEqual(result.structuredContent, { valid: true, total: 0, violations: [] }) &&
          textOf(result) === 'Valid: the document conforms to the schema.'
          ? undefined
          : `got ${JSON.stringify(result.structuredContent)} / ${textOf(result)}`;
      },
    };
  }
  if (roll < 0.9) {
    // 1–3 records get a qty that is not an integer, or lose their required id.
    const k = r.int(1, Math.min(3, doc.records.length));
    const chosen = new Set();
    while (chosen.size < k) chosen.add(r.int(0, doc.records.length - 1));
    const dropId = r.chance(0.3);
    const records = doc.records.map((record, i) => {
      if (!chosen.has(i)) return record;
      if (dropId) return { ...record, attrs: record.attrs.replace(/^id="[^"]*" /, '') };
      return {
        ...record,
        children: record.children.map((c) => (c.tag === 'qty' ? { tag: 'qty', text: `x${i}` } : c)),
      };
    });
    const want = [...chosen]
      .sort((a, b) => a - b)
      .map((i) =>
        dropId
          ? { path: `/catalog/item[${i + 1}]`, line: 1, pattern: /attribute 'id' is required/ }
          : {
              path: `/catalog/item[${i + 1}]/qty`,
              line: 1,
              pattern: new RegExp(`'x${i}' is not a valid value of the atomic type 'xs:integer'`),
            },
      );
    return {
      tool: 'xml_validate',
      args: { xml: serialize(doc, 0, 'self-closing', records), xsd: CATALOG_XSD },
      label: dropId ? 'validate.missing-attribute' : 'validate.bad-integer',
      check: expectError(new RegExp(`^Invalid: ${k} violations? of the schema\\.`), (res) => {
        const v = res.structuredContent?.violations ?? [];
        const ok =
          res.structuredContent?.valid === false &&
          v.length === want.length &&
          want.every((w, i) => v[i].path === w.path && v[i].line === w.line && w.pattern.test(v[i].message));
        return ok
          ? undefined
          : `violations ${clip(JSON.stringify(v))} != ${JSON.stringify(want.map((w) => w.path))}`;
      }),
    };
  }
  return {
    tool: 'xml_validate',
    args: { xml: doc.xml, xsd: CATALOG_XSD.replace('type="xs:integer"', 'type="xs:nosuch"') },
    label: 'validate.broken-schema',
    check: expectError(/^The `xsd` argument is not a usable XML Schema: .*nosuch/),
  };
}

function planFormat(r, doc) {
  const indent = r.pick([0, 0, 1, 2, 4]);
  const style = r.pick(['self-closing', 'spaced', 'expanded']);
  const args = { xml: doc.xml, indent, empty_elements: style };
  if (r.chance(0.3)) delete args.empty_elements;
  const want = serialize(doc, indent, args.empty_elements ?? 'self-closing');
  return {
    tool: 'xml_format',
    args,
    label: `format.indent${indent}`,
    check(result) {
      if (result.isError) return `unexpected isError: ${clip(textOf(result))}`;
      if (textOf(result) !== want)
        return `formatted text differs at ${firstDifference(textOf(result), want)}`;
      // The document is the answer, sent once as text (docs/tool-design.md).
      return result.structuredContent === undefined ? undefined : 'unexpected structuredContent';
    },
  };
}

function firstDifference(a = '', b = '') {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `index ${i}: got ${JSON.stringify(a.slice(i, i + 40))}, want ${JSON.stringify(b.slice(i, i + 40))}`;
}

function planQuery(r, doc, huge) {
  const f = doc.facts;
  const j = r.int(0, f.n - 1);
  const q = (xpath, type, values, extra = {}, hint = undefined) => {
    const args = { xml: doc.xml, xpath, ...extra };
    return {
      tool: 'xml_query',
      args,
      label: `query.${type}`,
      check: expectQuery(type, values, { xpath, maxChars: extra.max_chars, hint }),
    };
  };
  const roll = r.next();
  // Failures: 10% of queries.
  if (roll < 0.1) return planQueryFailure(r, doc, huge);
  // Budgeted node-sets and strings, sometimes with a small max_chars so the cut lands inside a value.
  if (roll < 0.2) {
    const extra = r.chance(0.5) ? { max_chars: r.int(100, 3000) } : {};
    const byKind = doc.kind === 'catalog' ? '//name' : '//*[local-name()="title"]';
    const call = r.chance(0.7)
      ? q(byKind, 'node-set', f.texts, extra)
      : q('string(/)', 'string', [allText(doc)], extra);
    call.label = `query.budget${extra.max_chars ? '-max_chars' : ''}`;
    return call;
  }
  if (doc.kind === 'catalog') {
    const cat = r.pick(CATEGORIES);
    const k = r.int(1, 12);
    const t = r.int(0, 999);
    const pick = r.int(0, 15);
    switch (pick) {
      case 0:
        return q('count(//item)', 'number', [String(f.n)]);
      case 1:
        return q('sum(//qty)', 'number', [String(f.numberSum)]);
      case 2:
        return q('sum(//item/@price)', 'number', [String(f.priceSum)]);
      case 3:
        return q(`count(//item[@cat="${cat}"])`, 'number', [String(f.cats.filter((c) => c === cat).length)]);
      case 4:
        return q('count(//item) div 4', 'number', [String(f.n / 4)]);
      case 5:
        return q(`string(//item[${j + 1}]/name)`, 'string', [f.texts[j]]);
      case 6:
        return q(`//item[@id="i${j}"]/qty`, 'node-set', [f.numbers[j]]);
      case 7:
        return q(`//item[position() <= ${k}]/name`, 'node-set', f.texts.slice(0, k));
      case 8:
        return q(
          `//item[@cat="${cat}"]/@id`,
          'node-set',
          f.ids.filter((_, i) => f.cats[i] === cat),
        );
      case 9:
        return q(
          `//qty[. > ${t}]`,
          'node-set',
          f.numbers.filter((v) => Number(v) > t),
        );
      case 10:
        return q('//item[last()]/@id', 'node-set', [f.ids.at(-1)]);
      case 11:
        return q('//note', 'node-set', new Array(f.notes).fill(''));
      case 12:
        return q('//missing', 'node-set', []);
      case 13:
        return q(`count(//item) > ${t}`, 'boolean', [String(f.n > t)]);
      case 14:
        return q(`concat(name(/*), ":", //item[${j + 1}]/@cat)`, 'string', [`catalog:${f.cats[j]}`]);
      default:
        return q('string(sum(//item/@price) * 1000)', 'string', [String(f.priceSum * 1000)]);
    }
  }
  // feed: prefixes in the expression resolve only against `namespaces`, never the document's.
  const [p, m] = r.pick([
    ['a', 'b'],
    ['f', 'm'],
    ['m', 'f'],
    ['ns1', 'ns2'],
  ]);
  const namespaces = { [p]: FEED_NS, [m]: META_NS };
  const pick = r.int(0, 8);
  switch (pick) {
    case 0:
      return q(`count(//${p}:entry)`, 'number', [String(f.n)], { namespaces });
    case 1:
      // The answer stays XPath 1.0's; a line after it says where `entry` is (ADR 0018).
      return q('count(//entry)', 'number', ['0'], {}, ENTRY_HINT);
    case 2:
      return q(`sum(//${p}:entry/${m}:rank)`, 'number', [String(f.numberSum)], { namespaces });
    case 3:
      return q(`//${p}:entry[@${m}:id="e${j}"]/${p}:title`, 'node-set', [f.texts[j]], { namespaces });
    case 4:
      return q(`//@${m}:id`, 'node-set', f.ids, { namespaces });
    case 5:
      return q('namespace-uri(/*)', 'string', [FEED_NS]);
    case 6:
      return q(`count(//${p}:note)`, 'number', [String(f.notes)], { namespaces });
    case 7:
      return q(`//${p}:entry[${j + 1}]/${m}:rank`, 'node-set', [f.numbers[j]], { namespaces });
    default:
      return q(`boolean(//${p}:entry[@${m}:id="e${j}"])`, 'boolean', ['true'], { namespaces });
  }
}

/** The line after `count(//entry)` on a feed: its entries are in the default namespace. */
const ENTRY_HINT =
  `The document has no \`entry\` elements in no namespace: they are in ${FEED_NS}, and an unprefixed ` +
  `name in XPath 1.0 means no namespace, even under a default namespace. So pass "namespaces": ` +
  `{"f":"${FEED_NS}"} and write \`count(//f:entry)\`.`;

function planQueryFailure(r, doc, huge) {
  const failures = [
    ['//item[', /^The `xpath` argument is not a valid XPath 1\.0 expression at character \d+/],
    ['count(//item', /^The `xpath` argument is not a valid XPath 1\.0 expression/],
    ['//item[@id=]', /^The `xpath` argument is not a valid XPath 1\.0 expression/],
    ['nosuch(//item)', /could not be evaluated: Unregistered function|not a valid XPath/],
    ['//p:item', /^Prefix `p` is not bound: pass it in the `namespaces` argument/],
    ['$n + 1', /variable `\$n`/],
  ];
  if (!huge && r.chance(0.4)) {
    const { xml, line } = mismatchedTag(r, doc);
    return {
      tool: 'xml_query',
      args: { xml, xpath: 'count(//*)' },
      label: 'query.malformed-xml',
      check: expectError(
        new RegExp(`^The \`xml\` argument is not well-formed XML: line ${line}, column \\d+`),
      ),
    };
  }
  const [xpath, pattern] = r.pick(failures);
  return {
    tool: 'xml_query',
    args: { xml: doc.xml, xpath },
    label: 'query.bad-xpath',
    check: expectError(pattern),
  };
}

/**
 * A deterministic case: a value made of astral characters (surrogate pairs) cut by max_chars
 * exactly between the two halves of a pair.
 */
export function planAstralCut(seed) {
  const r = rng(seed);
  const unit = r.pick(['ab😀', 'x🚀', 'é😀z']);
  const value = unit.repeat(60);
  // The cut keeps max_chars UTF-16 code units; end it right after a high surrogate.
  const maxChars = value.indexOf('\ud83d', 100) + 1;
  const xml = `<r><t>${value}</t></r>`;
  const xpath = r.chance(0.5) ? '//t' : 'string(//t)';
  return {
    tool: 'xml_query',
    args: { xml, xpath, max_chars: maxChars },
    label: 'query.budget-astral-cut',
    check: expectQuery(xpath === '//t' ? 'node-set' : 'string', [value], { xpath, maxChars }),
  };
}

/** Checks one answer: the call's own expectation, then well-formed Unicode everywhere. */
export function checkAnswer(plan, result) {
  return plan.check(result) ?? unicodeProblem(result);
}

/* ------------------------------------------------------------------------------------------ */
/* Document handles in the mix                                                                  */
/* ------------------------------------------------------------------------------------------ */

const HANDLE_PAIRS = [
  ['xml', 'document'],
  ['xsd', 'schema'],
];
const HANDLE_IN_LINE = /\b(document|schema): (d_[A-Za-z0-9_-]{22})\b/g;
export const NOT_HELD = 'That document is no longer held; send its text as `xml` again.';

/**
 * The session's bound on held text, what each held document counts beyond its text, and the
 * largest text held (MAX_HELD_SESSION_BYTES, HELD_DOCUMENT_OVERHEAD_BYTES and MAX_DOCUMENT_BYTES
 * in src/limits.ts; test/soak-held-mirror.test.ts checks them): the client's mirror of the store
 * evicts as the server does.
 */
export const HELD_SESSION_BYTES = 32 * 1024 * 1024;
export const HELD_OVERHEAD_BYTES = 1024;
export const MAX_HELD_TEXT_BYTES = 8 * 1024 * 1024;

/**
 * A client that uses document handles the way a model should (issue 13): it remembers the handle
 * each answer gives for a text it sent, and sends every other call (`byHandle(index)`) whose
 * texts it has handles for by their handles instead. Every answer's handles are checked
 * (the last content block and `structuredContent` agree; a call by handle answers the same
 * handle; in a session a successful call that sent a text gets its handle; with no session, no
 * handle at all), then taken out, so the call's own check sees the answer it always saw.
 */
export class HandleMix {
  #handles = new Map();
  #session;
  /** The texts the session holds, as far as this client can know: text → UTF-8 bytes, least recently used first. */
  #held = new Map();
  #heldBytes = 0;
  #sessionBytes;
  /** Each call's arguments → the texts it held first (let go again if the call is refused). */
  #fresh = new WeakMap();
  /** Calls sent by handle, and those refused as not held (then sent again as text). */
  stats = { byHandle: 0, notHeld: 0 };

  /** `sessionBytes`: the session's bound on held text, when the server was given another. */
  constructor({ session = true, sessionBytes = HELD_SESSION_BYTES } = {}) {
    this.#session = session;
    this.#sessionBytes = sessionBytes;
  }

  /**
   * Bytes of text the session holds by design, as this client can know them without asking the
   * server: the store's rules (src/tools/document-handles.ts) applied to what it sent. A text is
   * held when a call sends it and used when a call names it by handle, in the order the calls are
   * sent; the least recently used go first past the session's bound; a call refused for its text
   * (no handle in the answer) lets go the texts it held first; a handle refused as no longer held
   * is gone. test/soak-held-mirror.test.ts checks this against the store after every call. It is
   * what the design holds, never what the server reports of itself, so a store that keeps more
   * than that still shows as growth.
   */
  get heldBytes() {
    return this.#heldBytes;
  }

  /** Texts in `heldBytes`. */
  get heldTexts() {
    return this.#held.size;
  }

  /** Holds `text` as the most recently used; true when it was not held before. */
  #hold(text) {
    if (this.#touch(text)) return false;
    const bytes = Buffer.byteLength(text, 'utf8');
    const charge = bytes + HELD_OVERHEAD_BYTES;
    if (bytes > MAX_HELD_TEXT_BYTES || charge > this.#sessionBytes) return false;
    // What the server counts against the bound: each text and its overhead.
    for (const oldest of this.#held.keys()) {
      if (this.#heldBytes + this.#held.size * HELD_OVERHEAD_BYTES + charge <= this.#sessionBytes) break;
      this.#drop(oldest);
    }
    this.#held.set(text, bytes);
    this.#heldBytes += bytes;
    return true;
  }

  #touch(text) {
    const bytes = this.#held.get(text);
    if (bytes === undefined) return false;
    this.#held.delete(text);
    this.#held.set(text, bytes);
    return true;
  }

  #drop(text) {
    const bytes = this.#held.get(text);
    if (bytes === undefined) return;
    this.#held.delete(text);
    this.#heldBytes -= bytes;
  }

  /** The arguments to send for `plan`: by handle on odd indexes, where the handles are known. */
  arguments(plan, index) {
    const sent = this.#choose(plan, index);
    if (this.#session) {
      const fresh = [];
      for (const [text, handle] of HANDLE_PAIRS) {
        const value = plan.args[text];
        if (typeof value !== 'string') continue;
        if (sent[handle] !== undefined) this.#touch(value);
        else if (this.#hold(value)) fresh.push(value);
      }
      this.#fresh.set(sent, fresh);
    }
    return sent;
  }

  #choose(plan, index) {
    if (index % 2 === 0 || !this.#session) return plan.args;
    const args = { ...plan.args };
    let replaced = false;
    for (const [text, handle] of HANDLE_PAIRS) {
      const known = typeof args[text] === 'string' ? this.#handles.get(args[text]) : undefined;
      if (!known) continue;
      delete args[text];
      args[handle] = known;
      replaced = true;
    }
    if (replaced) this.stats.byHandle++;
    return replaced ? args : plan.args;
  }

  /** `{ result, problem }`: the answer without its handles, or what is wrong with them. */
  settle(plan, sent, result) {
    const content = Array.isArray(result.content) ? result.content : [];
    const last = content.length > 1 ? content.at(-1)?.text : undefined;
    const inLine = {};
    if (typeof last === 'string' && last.startsWith('document: ')) {
      for (const [, name, handle] of last.matchAll(HANDLE_IN_LINE)) inLine[name] = handle;
    }
    const given = Object.keys(inLine).length > 0;
    // An answer without handles in a session: the call was refused, and what it held first is let go.
    if (this.#session && !given) for (const text of this.#fresh.get(sent) ?? []) this.#drop(text);
    if (!this.#session && given) return { problem: `a handle without a session: ${last}` };
    const sc = result.structuredContent;
    for (const [text, handle] of HANDLE_PAIRS) {
      if (sc && (sc[handle] !== undefined || (given && plan.tool !== 'xml_format' && inLine[handle]))) {
        if (sc[handle] !== inLine[handle]) {
          return {
            problem: `structuredContent.${handle} ${sc[handle]} != the last line's ${inLine[handle]}`,
          };
        }
      }
      if (sent[handle] !== undefined && !result.isError && inLine[handle] !== sent[handle]) {
        return { problem: `sent ${handle} ${sent[handle]}, the answer names ${inLine[handle]}` };
      }
      if (typeof sent[text] === 'string') {
        if (inLine[handle]) this.#handles.set(sent[text], inLine[handle]);
        else if (this.#session && !result.isError) return { problem: `no handle for the ${text} sent` };
      }
    }
    if (!given) return { result };
    const stripped = { ...result, content: content.slice(0, -1) };
    if (sc) {
      const { document: _document, schema: _schema, ...rest } = sc;
      stripped.structuredContent = rest;
    }
    return { result: stripped };
  }

  /** The call by handle was refused as not held: forget the handles it used (it is sent again as text). */
  refused(sent) {
    this.stats.notHeld++;
    // The server stopped at the handle it does not hold: a text beside it was not held either.
    for (const text of this.#fresh.get(sent) ?? []) this.#drop(text);
    for (const [, handle] of HANDLE_PAIRS) {
      if (sent[handle] === undefined) continue;
      for (const [key, value] of this.#handles) {
        if (value !== sent[handle]) continue;
        this.#handles.delete(key);
        this.#drop(key);
      }
    }
  }
}

/**
 * One call through `send(args)` with handles in the mix: by handle where `mix` says so, sent
 * again as text when the handle is no longer held. Resolves `{ result, problem }`.
 */
export async function callWithHandles(mix, plan, index, send) {
  const sent = mix.arguments(plan, index);
  let result = await send(sent);
  if (sent !== plan.args && result.isError && textOf(result) === NOT_HELD) {
    mix.refused(sent);
    return callWithHandles(mix, plan, 0, send);
  }
  const settled = mix.settle(plan, sent, result);
  if (settled.problem) return settled;
  result = settled.result;
  return { result, problem: checkAnswer(plan, result) };
}

/* ------------------------------------------------------------------------------------------ */
/* Shared helpers for the two scripts                                                           */
/* ------------------------------------------------------------------------------------------ */

export function parseFlags(argv, defaults, usage) {
  const flags = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(usage);
      process.exit(0);
    }
    const [name, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s) : [undefined];
    if (name === undefined || !(name in defaults)) {
      process.stderr.write(`unknown argument ${arg}\n${usage}`);
      process.exit(2);
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) {
      process.stderr.write(`--${name} needs a value\n${usage}`);
      process.exit(2);
    }
    if (typeof defaults[name] === 'number') {
      const value = Number(raw);
      if (!Number.isFinite(value) || value < 0) {
        process.stderr.write(`--${name} must be a non-negative number\n${usage}`);
        process.exit(2);
      }
      flags[name] = value;
    } else flags[name] = raw;
  }
  return flags;
}

/** VmRSS / VmHWM (kB) and thread count of a process, from /proc. */
export function processMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM'), threads: field('Threads') };
}

/**
 * Where the server's resident memory is, from /proc/PID/smaps (diagnostic, --smaps 1): the main
 * malloc heap, glibc thread arenas (64 MiB-aligned anonymous regions), WebAssembly memories
 * (accessible pages followed by a guard reservation of 1 GiB or more), other anonymous memory (V8 heaps, code, stacks)
 * and file mappings. In MiB.
 */
export function memoryMap(pid) {
  const regions = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const start = BigInt(`0x${head[1]}`);
      regions.push({ start, end: BigInt(`0x${head[2]}`), perms: head[3], name: head[4], kb: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && regions.length > 0) regions[regions.length - 1].kb += Number(rss[1]);
  }
  const sums = { brk: 0, arenas: 0, wasm: 0, anon: 0, files: 0 };
  for (const [i, r] of regions.entries()) {
    const next = regions[i + 1];
    // A WebAssembly memory is its accessible pages followed by a guard reservation of GiBs.
    const guarded =
      next && next.start === r.end && next.perms === '---p' && next.end - next.start >= 1n << 30n;
    const kind =
      r.name === '[heap]'
        ? 'brk'
        : r.name.startsWith('/')
          ? 'files'
          : r.name !== ''
            ? 'anon'
            : guarded
              ? 'wasm'
              : r.start % (64n << 20n) === 0n && r.end - r.start <= 64n << 20n
                ? 'arenas'
                : 'anon';
    sums[kind] += r.kb;
  }
  return Object.entries(sums)
    .map(([name, kb]) => `${name} ${(kb / 1024).toFixed(0)}`)
    .join(', ');
}

/** glibc's mmap threshold fixed at 1 MiB: the README's setting for a long-running server. */
export const RECOMMENDED_ALLOCATOR = { MALLOC_MMAP_THRESHOLD_: '1048576' };

/**
 * The allocator settings the server runs with. The SDK passes the child a minimal environment,
 * so they are set here: glibc variables from this environment if there are any, else the
 * recommended setting unless `glibc` (its defaults) is asked for.
 */
export function allocatorEnvironment(choice) {
  if (choice !== 'recommended' && choice !== 'glibc') {
    process.stderr.write(`--allocator must be recommended or glibc, not ${choice}\n`);
    process.exit(2);
  }
  const given = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name.startsWith('MALLOC_') || name === 'GLIBC_TUNABLES'),
  );
  if (Object.keys(given).length > 0) return given;
  return choice === 'recommended' ? { ...RECOMMENDED_ALLOCATOR } : {};
}

export const mb = (kb) => `${(kb / 1024).toFixed(1)} MiB`;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with `promise`, or rejects after `ms` with `what` in the message. */
export function within(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/* ------------------------------------------------------------------------------------------ */
/* The soak itself                                                                              */
/* ------------------------------------------------------------------------------------------ */

const USAGE = `usage: node scripts/soak.mjs [--calls 10000] [--concurrency 4] [--seed 1] [--baseline 1000]
                              [--max-growth 0.10] [--max-buffer-growth 2] [--settle-ms 1000]
                              [--sample-every 1000]
                              [--level-samples 10] [--level-spacing 100]
                              [--max-seconds 1800] [--smaps 0|1]
                              [--call-timeout-ms 60000] [--gc 1] [--tools all|xml_query,...]
                              [--pin none|2026-07-28] [--allocator recommended|glibc]
                              [--bin dist/cli.js]
`;

async function main() {
  const flags = parseFlags(
    process.argv.slice(2),
    {
      calls: 10_000,
      concurrency: 4,
      seed: 1,
      baseline: 1_000,
      'max-growth': 0.1,
      'max-buffer-growth': 2,
      'settle-ms': 1_000,
      'sample-every': 1_000,
      'level-samples': 10,
      'level-spacing': 100,
      smaps: 0,
      'max-seconds': 1_800,
      'call-timeout-ms': 60_000,
      gc: 1,
      tools: 'all',
      pin: 'none',
      allocator: 'recommended',
      bin: DEFAULT_BIN,
    },
    USAGE,
  );
  const calls = Math.floor(flags.calls);
  const forceGc = flags.gc !== 0;
  const only = flags.tools === 'all' ? undefined : flags.tools.split(',');
  const baselineAt = Math.min(Math.floor(flags.baseline), calls);
  const concurrency = Math.max(1, Math.floor(flags.concurrency));
  const deadline = Date.now() + flags['max-seconds'] * 1000;

  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/client/stdio');

  const corpus = buildCorpus({ seed: flags.seed });
  const sizes = [...corpus.docs, ...corpus.big].map((d) => Buffer.byteLength(d.xml));
  log(
    `corpus: ${corpus.docs.length} documents ${kb(Math.min(...sizes))}–${kb(Math.max(...sizes.slice(0, corpus.docs.length)))}, ` +
      `${corpus.big.length} of ~${kb(Math.min(...sizes.slice(corpus.docs.length)))}`,
  );

  const allocator = allocatorEnvironment(flags.allocator);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(forceGc ? ['--inspect=127.0.0.1:0'] : []), flags.bin],
    env: { ...getDefaultEnvironment(), ...allocator },
    stderr: 'pipe',
  });
  let serverStderr = '';
  let inspectorUrl;
  transport.stderr?.setEncoding('utf8');
  transport.stderr?.on('data', (chunk) => {
    inspectorUrl ??= /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(chunk)?.[1];
    serverStderr = (serverStderr + chunk).slice(-16_384);
  });
  const client = new Client(
    { name: 'oxml-soak', version: '1' },
    flags.pin === 'none' ? {} : { versionNegotiation: { mode: { pin: flags.pin } } },
  );
  await within(client.connect(transport), 30_000, 'connect');
  const pid = transport.pid;
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  if (names.join() !== 'xml_check,xml_format,xml_inspect,xml_query,xml_validate') {
    throw new Error(`unexpected tools: ${names.join(', ')}`);
  }
  log(
    `server pid ${pid}, protocol ${client.getNegotiatedProtocolVersion()}, start RSS ${mb(processMemory(pid).rssKb)}`,
  );

  const stats = { done: 0, wrong: [], lost: [], isError: 0, byTool: {}, byLabel: {} };
  // A stdio connection is a session in every revision: half the calls go by handle where they can.
  const handles = new HandleMix();
  const samples = [];
  let timedOut = false;
  let gcFailed = false;

  async function one(index) {
    // A deterministic astral-cut case on every 500th call; the rest from the mix.
    const seed = callSeed(flags.seed, index);
    const plan =
      index % 500 === 250 && (!only || only.includes('xml_query'))
        ? planAstralCut(seed)
        : planCall(corpus, seed, { tools: only });
    let answer;
    try {
      answer = await callWithHandles(handles, plan, index, (args) =>
        client.callTool({ name: plan.tool, arguments: args }, { timeout: flags['call-timeout-ms'] }),
      );
    } catch (error) {
      stats.lost.push({ index, label: plan.label, reason: String(error?.message ?? error) });
      return;
    } finally {
      stats.done++;
      stats.byTool[plan.tool] = (stats.byTool[plan.tool] ?? 0) + 1;
    }
    stats.byLabel[plan.label] = (stats.byLabel[plan.label] ?? 0) + 1;
    if (answer.result?.isError) stats.isError++;
    const problem = answer.problem;
    if (problem) stats.wrong.push({ index, label: plan.label, tool: plan.tool, reason: problem });
  }

  async function runRange(from, to) {
    let next = from;
    const lane = async () => {
      while (next < to) {
        if (Date.now() > deadline) {
          timedOut = true;
          return;
        }
        await one(next++);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  }

  /**
   * A checkpoint, once the in-flight calls have drained: RSS raw, then (unless --gc 0) after a
   * full garbage collection of every thread and --settle-ms of idle, with each thread's V8 heap.
   */
  async function checkpoint() {
    const raw = processMemory(pid);
    let gc = 'no GC';
    let heaps = [];
    if (forceGc) {
      try {
        if (!inspectorUrl) throw new Error('the server printed no inspector URL');
        heaps = await within(collectGarbage(inspectorUrl), 30_000, 'garbage collection');
        gc = `after GC of ${heaps.length} threads`;
      } catch (error) {
        gc = `GC FAILED (${error.message})`;
        gcFailed = true;
      }
    }
    await sleep(flags['settle-ms']);
    const heldKb = handles.heldBytes / 1024;
    const main = heaps.find((h) => h.thread === 'main');
    const buffersKb = main ? main.arrayBuffers / 1024 : undefined;
    const sample = { calls: stats.done, ...processMemory(pid), rawKb: raw.rssKb, heldKb, buffersKb, heaps };
    const heapText = heaps.map(threadMemory).join(', ');
    if (flags.smaps) log(`${stats.done} calls, resident MiB by region: ${memoryMap(pid)}`);
    log(
      `${stats.done} calls, ${(stats.done / (callSeconds + (performance.now() - phaseStart) / 1000 || 1)).toFixed(0)} calls/s, RSS ${mb(raw.rssKb)} raw, ${mb(sample.rssKb)} ${gc}, held texts ${mb(heldKb)} (${handles.heldTexts})${heapText ? ` (MiB heap/external/arrayBuffers: ${heapText})` : ''}; wrong ${stats.wrong.length}, lost ${stats.lost.length}`,
    );
    return sample;
  }

  // Checkpoints every --sample-every calls, and the samples of the two levels compared.
  const levelCount = Math.max(1, Math.floor(flags['level-samples']));
  const spacing = Math.max(1, Math.floor(flags['level-spacing']));
  const baselineMarks = Array.from({ length: levelCount }, (_, i) =>
    Math.min(calls, baselineAt + i * spacing),
  );
  const endMarks = Array.from({ length: levelCount }, (_, i) => Math.max(0, calls - i * spacing));
  const marks = new Set([...baselineMarks, ...endMarks]);
  for (let at = flags['sample-every']; at > 0 && at < calls; at += flags['sample-every']) marks.add(at);
  let callSeconds = 0;
  let phaseStart = performance.now();
  let baseline;
  let from = 0;
  for (const mark of [...marks].filter((m) => m > 0).sort((a, b) => a - b)) {
    phaseStart = performance.now();
    await runRange(from, mark);
    callSeconds += (performance.now() - phaseStart) / 1000;
    phaseStart = performance.now();
    from = mark;
    const sample = await checkpoint();
    samples.push(sample);
    if (mark === baselineAt) baseline = sample;
    if (timedOut) break;
  }
  const end = samples.at(-1);
  const alive = isAlive(pid);
  await client.close();
  const exitedAfterClose = await waitForExit(pid, 10_000);

  const elapsed = callSeconds;
  const level = (at, of) => medianOf(samples.filter((sample) => at.includes(sample.calls)).map(of));
  // Judged: RSS less the texts the session holds by design (the header comment says why).
  const judged = (sample) => sample.rssKb - sample.heldKb;
  const baseLevel = level(baselineMarks, judged);
  const endLevel = level(endMarks, judged);
  const levelRatio = endLevel / baseLevel;
  const rssBaseLevel = level(baselineMarks, (x) => x.rssKb);
  const rssEndLevel = level(endMarks, (x) => x.rssKb);
  const heldBase = level(baselineMarks, (x) => x.heldKb);
  const heldEnd = level(endMarks, (x) => x.heldKb);
  const ratio = judged(end) / judged(baseline);
  const rawRatio = end.rawKb / baseline.rawKb;
  const growthOk = calls <= baselineAt || levelRatio <= 1 + flags['max-growth'];
  // The main thread's live array buffers beyond the held texts, exact after a full GC.
  const measured = samples.every((sample) => sample.buffersKb !== undefined);
  const unheld = (sample) => sample.buffersKb - sample.heldKb;
  const buffersBase = measured ? level(baselineMarks, unheld) : Number.NaN;
  const buffersEnd = measured ? level(endMarks, unheld) : Number.NaN;
  const buffersGrowthMiB = (buffersEnd - buffersBase) / 1024;
  const buffersOk = !measured || calls <= baselineAt || buffersGrowthMiB <= flags['max-buffer-growth'];
  const report = [
    '',
    '== oxml-mcp soak (stdio) ==',
    `command:          node scripts/soak.mjs ${process.argv.slice(2).join(' ')}`.trimEnd(),
    `binary:           ${flags.bin} (pid ${pid})`,
    `allocator:        ${
      Object.entries(allocator)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ') || "glibc's defaults"
    }`,
    `calls:            ${stats.done} of ${calls} (concurrency ${concurrency}, seed ${flags.seed})`,
    `per tool:         ${Object.entries(stats.byTool)
      .sort()
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}`,
    `isError answers:  ${stats.isError} (expected failures, each checked)`,
    `by handle:        ${handles.stats.byHandle} calls (${handles.stats.notHeld} no longer held, sent again as text)`,
    `wrong answers:    ${stats.wrong.length}`,
    `lost calls:       ${stats.lost.length}`,
    `RSS after ${baselineAt}: ${mb(baseline.rssKb)}${forceGc ? ` after full GC (raw ${mb(baseline.rawKb)})` : ''}`,
    `RSS at end:       ${mb(end.rssKb)}${forceGc ? ` after full GC (raw ${mb(end.rawKb)})` : ''}; peak VmHWM ${mb(end.hwmKb)}, ${end.threads} threads`,
    `held texts:       ${mb(heldBase)} → ${mb(heldEnd)} (levels; ${handles.heldTexts} texts at the end, session bound ${mb(HELD_SESSION_BYTES / 1024)})`,
    `RSS levels:       ${mb(rssBaseLevel)} → ${mb(rssEndLevel)} (ratio ${(rssEndLevel / rssBaseLevel).toFixed(3)}, reported, not judged)`,
    `judged levels:    ${mb(baseLevel)} → ${mb(endLevel)} (RSS less held texts; median of ${levelCount} samples ${spacing} calls apart, from ${baselineAt} and up to ${calls})`,
    `level ratio:      ${levelRatio.toFixed(3)} (limit ${(1 + flags['max-growth']).toFixed(2)})`,
    measured
      ? `other buffers:    ${mb(buffersBase)} → ${mb(buffersEnd)} (${buffersGrowthMiB >= 0 ? '+' : ''}${buffersGrowthMiB.toFixed(2)} MiB, limit +${flags['max-buffer-growth']} MiB: the main thread's array buffers after GC less held texts, levels)`
      : 'other buffers:    not judged (no GC, so no exact array-buffer figures)',
    `single samples:   ${ratio.toFixed(3)} end/base less held texts${forceGc ? `; raw RSS ${rawRatio.toFixed(3)}` : ''} (reported, not judged)`,
    `RSS trajectory:   ${samples.map((s) => `${s.calls}:${(s.rssKb / 1024).toFixed(0)}`).join(' ')} (MiB${forceGc ? ', after GC' : ''})`,
    `held trajectory:  ${samples.map((s) => `${s.calls}:${(s.heldKb / 1024).toFixed(1)}`).join(' ')} (MiB of text the session holds)`,
    `raw trajectory:   ${samples.map((s) => `${s.calls}:${(s.rawKb / 1024).toFixed(0)}`).join(' ')} (MiB, before GC)`,
    ...(forceGc
      ? [
          `threads after GC: ${[baseline, end]
            .map((s) => `${s.calls}: ${s.heaps.map(threadMemory).join(', ')}`)
            .join(' | ')} (MiB V8 heap used/external/arrayBuffers)`,
        ]
      : []),
    `time:             ${elapsed.toFixed(1)} s of calls, ${(stats.done / elapsed).toFixed(1)} calls/s`,
    `server:           ${alive ? 'alive at end' : 'NOT ALIVE at end'}, ${exitedAfterClose ? 'exited after close' : 'still running 10 s after close'}`,
  ];
  if (timedOut) report.push(`STOPPED: --max-seconds ${flags['max-seconds']} reached`);
  const byReason = group(stats.wrong);
  for (const [label, list] of byReason) {
    report.push(`WRONG ${label} × ${list.length}; first: call #${list[0].index}: ${list[0].reason}`);
  }
  for (const [label, list] of group(stats.lost)) {
    report.push(`LOST ${label} × ${list.length}; first: call #${list[0].index}: ${list[0].reason}`);
  }
  if (gcFailed) report.push('GC before a sample failed: the RSS figures are raw and noisy');
  const ok =
    stats.wrong.length === 0 &&
    stats.lost.length === 0 &&
    growthOk &&
    buffersOk &&
    !timedOut &&
    !gcFailed &&
    alive &&
    exitedAfterClose;
  const why = [
    growthOk ? '' : 'RSS less held texts grew past the limit',
    buffersOk ? '' : 'array buffers beyond the held texts grew past the limit',
  ].filter(Boolean);
  report.push(`verdict:          ${ok ? 'PASS' : 'FAIL'}${why.length > 0 ? ` (${why.join('; ')})` : ''}`);
  if (!ok && serverStderr.trim()) report.push(`server stderr (tail):\n${serverStderr.slice(-2000)}`);
  process.stdout.write(`${report.join('\n')}\n`);
  process.exit(ok ? 0 : 1);
}

function medianOf(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * A full, memory-reducing garbage collection (HeapProfiler.collectGarbage) of the server's main
 * thread and of every worker thread, through the server's loopback inspector. Resolves with
 * process.memoryUsage() as each thread sees it after its collection (heapUsed is per thread).
 */
async function collectGarbage(url) {
  const ws = new WebSocket(url);
  let nextId = 1;
  const pending = new Map();
  const workers = [];
  const detached = new Set();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    if (message.method === 'NodeWorker.attachedToWorker') workers.push(message.params.sessionId);
    // A worker the pool recycles may exit mid-collection: its pending replies will never come.
    if (message.method === 'NodeWorker.detachedFromWorker') {
      const { sessionId } = message.params;
      detached.add(sessionId);
      for (const [key, settle] of pending) {
        if (key.startsWith(`${sessionId}:`)) settle({ error: { message: 'worker exited' } });
      }
    }
    if (message.method === 'NodeWorker.receivedMessageFromWorker') {
      const inner = JSON.parse(message.params.message);
      pending.get(`${message.params.sessionId}:${inner.id}`)?.(inner);
    }
    if (message.id !== undefined) pending.get(String(message.id))?.(message);
  });
  const reply = (key) =>
    new Promise((resolve, reject) =>
      pending.set(key, (message) =>
        message.error ? reject(new Error(message.error.message)) : resolve(message),
      ),
    );
  const call = (method, params = {}) => {
    const id = nextId++;
    const answer = reply(String(id));
    ws.send(JSON.stringify({ id, method, params }));
    return answer;
  };
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error(`cannot open ${url}`)), { once: true });
  });
  const USAGE_EXPRESSION = {
    expression: 'JSON.stringify(process.memoryUsage())',
    returnByValue: true,
  };
  const usageOf = (message) => JSON.parse(message.result.result.value);
  try {
    await call('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await sleep(200);
    const heaps = [];
    for (const [index, sessionId] of workers.entries()) {
      const inWorker = async (id, method, params = {}) => {
        if (detached.has(sessionId)) throw new Error('worker exited');
        const answer = reply(`${sessionId}:${id}`);
        answer.catch(() => {}); // settled by a detach even if the send below fails first
        await call('NodeWorker.sendMessageToWorker', {
          sessionId,
          message: JSON.stringify({ id, method, params }),
        });
        return answer;
      };
      try {
        await inWorker(1, 'HeapProfiler.collectGarbage');
        heaps.push({
          thread: `worker${index + 1}`,
          ...usageOf(await inWorker(2, 'Runtime.evaluate', USAGE_EXPRESSION)),
        });
      } catch (error) {
        // Only a worker that exited (recycled by the pool) may be skipped; its memory is gone.
        if (!detached.has(sessionId)) throw error;
      }
    }
    await call('HeapProfiler.collectGarbage');
    heaps.unshift({ thread: 'main', ...usageOf(await call('Runtime.evaluate', USAGE_EXPRESSION)) });
    await call('NodeWorker.disable');
    return heaps;
  } finally {
    ws.close();
  }
}

function group(list) {
  const map = new Map();
  for (const item of list) map.set(item.label, [...(map.get(item.label) ?? []), item]);
  return map;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

const threadMemory = (h) =>
  `${h.thread} ${[h.heapUsed, h.external, h.arrayBuffers].map((b) => (b / 2 ** 20).toFixed(1)).join('/')}`;
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;
const log = (line) => process.stderr.write(`[soak] ${line}\n`);

const isMain = process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
if (isMain && typeof WebSocket === 'undefined') {
  // Node 20 has a WebSocket client (for the inspector) only behind a flag: run again with it.
  const again = spawnSync(
    process.execPath,
    ['--experimental-websocket', '--disable-warning=ExperimentalWarning', ...process.argv.slice(1)],
    { stdio: 'inherit' },
  );
  process.exit(again.status ?? 1);
} else if (isMain) {
  main().catch((error) => {
    process.stderr.write(`[soak] failed: ${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
