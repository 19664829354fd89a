import { type Random, rng } from './random.js';

/*
 * The soak's documents: a small model serialised by hand, so every answer is known in advance
 * without asking the engine.
 */

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
export const CATEGORIES = ['book', 'tool', 'food', 'toy'] as const;
export const FEED_NS = 'urn:example:feed';
export const META_NS = 'urn:example:meta';

/** An element of a record: `text` null is an empty element. */
export interface Child {
  tag: string;
  text: string | null;
}

/** What a record was made of (a feed's entries have no category or price: '' and 0). */
export interface Fields {
  id: string;
  cat: string;
  price: number;
  text: string;
  number: number;
  note: boolean;
}

export interface DocRecord {
  tag: string;
  attrs: string;
  fields: Fields;
  children: Child[];
}

/** What the answers about a document are made of, counted from its model. */
export interface Facts {
  n: number;
  counts: Map<string, number>;
  totalElements: number;
  attributes: number;
  nodes: number;
  notes: number;
  maxDepth: number;
  texts: string[];
  numbers: string[];
  ids: string[];
  numberSum: number;
  cats: string[];
  priceSum: number;
}

export interface Doc {
  kind: 'catalog' | 'feed';
  root: string;
  rootOpen: string;
  records: DocRecord[];
  xml: string;
  facts: Facts;
  allText?: string;
}

export type EmptyStyle = 'self-closing' | 'spaced' | 'expanded';

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function words(r: Random, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(r.pick(WORDS));
  return out.join(' ');
}

/**
 * kind 'catalog': <catalog><item id cat price><name/><qty/>[<note/>]</item>...</catalog>
 * kind 'feed':    <feed xmlns=FEED xmlns:m=META><entry m:id><title/><m:rank/>[<note/>]</entry>...</feed>
 */
function makeDocument(kind: Doc['kind'], targetBytes: number, seed: number): Doc {
  const r = rng(seed);
  const records: DocRecord[] = [];
  let bytes = 40;
  while (bytes < targetBytes || records.length === 0) {
    const i = records.length;
    const long = r.chance(0.03);
    const text = words(r, long ? r.int(20, 60) : r.int(1, 3));
    const number = r.int(0, 999);
    const note = i % 7 === 3;
    const noteChild: Child[] = note ? [{ tag: 'note', text: null }] : [];
    let record: DocRecord;
    if (kind === 'catalog') {
      const cat = r.pick(CATEGORIES);
      const price = r.int(1, 99_999);
      record = {
        tag: 'item',
        attrs: `id="i${i}" cat="${cat}" price="${price}"`,
        fields: { id: `i${i}`, cat, price, text, number, note },
        children: [{ tag: 'name', text }, { tag: 'qty', text: String(number) }, ...noteChild],
      };
    } else {
      record = {
        tag: 'entry',
        attrs: `m:id="e${i}"`,
        fields: { id: `e${i}`, cat: '', price: 0, text, number, note },
        children: [{ tag: 'title', text }, { tag: 'm:rank', text: String(number) }, ...noteChild],
      };
    }
    records.push(record);
    bytes += recordBytes(record);
  }
  const shell =
    kind === 'catalog'
      ? { kind, root: 'catalog', rootOpen: '<catalog>', records }
      : { kind, root: 'feed', rootOpen: `<feed xmlns="${FEED_NS}" xmlns:m="${META_NS}">`, records };
  return { ...shell, xml: serialize(shell, 0, 'self-closing'), facts: facts(shell) };
}

function recordBytes(record: DocRecord): number {
  let n = record.tag.length * 2 + record.attrs.length + 6;
  for (const child of record.children) n += child.tag.length * 2 + 5 + (child.text ?? '').length * 1.2;
  return n;
}

function emptyTag(tag: string, style: EmptyStyle): string {
  if (style === 'spaced') return `<${tag} />`;
  if (style === 'expanded') return `<${tag}></${tag}>`;
  return `<${tag}/>`;
}

type Shell = Pick<Doc, 'kind' | 'root' | 'rootOpen' | 'records'>;

/** What xml_format must return: libxml2's serialisation with `indent` spaces (0 = minified). */
export function serialize(
  doc: Shell,
  indent: number,
  style: EmptyStyle,
  records: readonly DocRecord[] = doc.records,
): string {
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

function facts(doc: Shell): Facts {
  const counts = new Map([[doc.root, 1]]);
  let attributes = 0;
  let texts = 0;
  let notes = 0;
  const add = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
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
  return {
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
    cats: f.map((x) => x.cat),
    priceSum: f.reduce((a, x) => a + x.price, 0),
  };
}

/** string(/): the concatenation of every text node, in document order. */
export function allText(doc: Doc): string {
  doc.allText ??= doc.records.map((record) => record.children.map((c) => c.text ?? '').join('')).join('');
  return doc.allText;
}

export interface Corpus {
  docs: Doc[];
  big: Doc[];
}

/**
 * The documents calls are drawn from: sizes spread log-uniformly from ~1 KB to ~200 KB, plus a
 * few of ~2 MB.
 */
export function buildCorpus({ seed = 1, regular = 36, huge = 3 } = {}): Corpus {
  const r = rng(seed);
  const docs: Doc[] = [];
  for (let i = 0; i < regular; i++) {
    const target = Math.round(1024 * 200 ** (i / (regular - 1)));
    docs.push(makeDocument(i % 3 === 2 ? 'feed' : 'catalog', target, r.int(1, 2 ** 31)));
  }
  const big: Doc[] = [];
  for (let i = 0; i < huge; i++) {
    big.push(makeDocument(i === 1 ? 'feed' : 'catalog', 2 * 1024 * 1024, r.int(1, 2 ** 31)));
  }
  return { docs, big };
}
