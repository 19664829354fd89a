import type { QueryResult } from '../../src/engine/query/query.js';
import { expectError, type Plan } from './answer.js';
import { allText, CATEGORIES, type Doc, FEED_NS, META_NS } from './documents.js';
import { mismatchedTag } from './mismatched-tag.js';
import { expectQuery } from './query-expectation.js';
import type { Random } from './random.js';

/**
 * The line after `count(//entry)` on a feed: its entries are in the default namespace. Written
 * out here, not taken from the engine, since the hint is the answer this call checks.
 */
const ENTRY_HINT =
  `The document has no \`entry\` elements in no namespace: they are in ${FEED_NS}, and an unprefixed ` +
  `name in XPath 1.0 means no namespace, even under a default namespace. So pass "namespaces": ` +
  `{"f":"${FEED_NS}"} and write \`count(//f:entry)\`.`;

/** Values the line after an empty answer reads at most (src/engine/query/field-values-hint.ts). */
const VALUES_READ = 10_000;

/**
 * The line after an empty answer to `@cat = "x"` on a catalog with no such category (ADR 0044):
 * what `@cat` holds, most frequent first (ties in document order), worked out from the facts.
 */
function catHint(cats: readonly string[], cat: string): string | undefined {
  if (cats.length === 0 || cats.includes(cat)) return undefined;
  const read = cats.slice(0, VALUES_READ);
  const counts = new Map<string, number>();
  for (const c of read) counts.set(c, (counts.get(c) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  const of =
    read.length < cats.length ? `of the first ${read.length} of ${cats.length}` : `of ${cats.length}`;
  const listed = ranked.map(([c, n]) => `${c}×${n}`).join(' ');
  return `No \`@cat\` is "${cat}". What \`@cat\` holds (${counts.size} distinct ${of}), most frequent first: ${listed}.`;
}

/** An xml_query call: a failure one time in ten, else an expression whose answer the model knows. */
export function planQuery(r: Random, doc: Doc, huge: boolean): Plan {
  const f = doc.facts;
  const j = r.int(0, f.n - 1);
  const q = (
    xpath: string,
    type: QueryResult['type'],
    values: readonly string[],
    extra: { max_chars?: number; namespaces?: Record<string, string> } = {},
    hint: string | undefined = undefined,
  ): Plan => ({
    tool: 'xml_query',
    args: { xml: doc.xml, xpath, ...extra },
    label: `query.${type}`,
    check: expectQuery(type, values, { xpath, maxChars: extra.max_chars, hint }),
  });
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
      case 3: {
        const count = f.cats.filter((c) => c === cat).length;
        return q(`count(//item[@cat="${cat}"])`, 'number', [String(count)], {}, catHint(f.cats, cat));
      }
      case 4:
        return q('count(//item) div 4', 'number', [String(f.n / 4)]);
      case 5:
        return q(`string(//item[${j + 1}]/name)`, 'string', [f.texts[j] ?? '']);
      case 6:
        return q(`//item[@id="i${j}"]/qty`, 'node-set', [f.numbers[j] ?? '']);
      case 7:
        return q(`//item[position() <= ${k}]/name`, 'node-set', f.texts.slice(0, k));
      case 8:
        return q(
          `//item[@cat="${cat}"]/@id`,
          'node-set',
          f.ids.filter((_, i) => f.cats[i] === cat),
          {},
          catHint(f.cats, cat),
        );
      case 9:
        return q(
          `//qty[. > ${t}]`,
          'node-set',
          f.numbers.filter((v) => Number(v) > t),
        );
      case 10:
        return q('//item[last()]/@id', 'node-set', [f.ids.at(-1) ?? '']);
      case 11:
        return q('//note', 'node-set', new Array<string>(f.notes).fill(''));
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
  ] as const);
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
      return q(`//${p}:entry[@${m}:id="e${j}"]/${p}:title`, 'node-set', [f.texts[j] ?? ''], { namespaces });
    case 4:
      return q(`//@${m}:id`, 'node-set', f.ids, { namespaces });
    case 5:
      return q('namespace-uri(/*)', 'string', [FEED_NS]);
    case 6:
      return q(`count(//${p}:note)`, 'number', [String(f.notes)], { namespaces });
    case 7:
      return q(`//${p}:entry[${j + 1}]/${m}:rank`, 'node-set', [f.numbers[j] ?? ''], { namespaces });
    default:
      return q(`boolean(//${p}:entry[@${m}:id="e${j}"])`, 'boolean', ['true'], { namespaces });
  }
}

const FAILURES: ReadonlyArray<readonly [string, RegExp]> = [
  ['//item[', /^The `xpath` argument is not a valid XPath 1\.0 expression at character \d+/],
  ['count(//item', /^The `xpath` argument is not a valid XPath 1\.0 expression/],
  ['//item[@id=]', /^The `xpath` argument is not a valid XPath 1\.0 expression/],
  ['nosuch(//item)', /could not be evaluated as XPath 3\.1: XPST0017|not a valid XPath/],
  ['//p:item', /^Prefix `p` is not bound: pass it in the `namespaces` argument/],
  ['$n + 1', /variable `\$n`/],
];

function planQueryFailure(r: Random, doc: Doc, huge: boolean): Plan {
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
  const [xpath, pattern] = r.pick(FAILURES);
  return {
    tool: 'xml_query',
    args: { xml: doc.xml, xpath },
    label: 'query.bad-xpath',
    check: expectError(pattern),
  };
}
