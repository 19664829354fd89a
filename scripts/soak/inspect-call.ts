import { isDeepStrictEqual } from 'node:util';
import { clip, type Plan, textOf } from './answer.js';
import { type Doc, FEED_NS, META_NS } from './documents.js';

interface Named {
  name: string;
  count: number;
}

/**
 * An xml_inspect answer (docs/behaviour.md §2): root, depth, totals, each element name with its
 * count and what its elements hold, the namespaces with their element and attribute counts, and
 * the outline of distinct paths, all known from the model; the text gives the same lines, and
 * states each of structuredContent's notes (docs/adr/0049).
 */
export function planInspect(doc: Doc): Plan {
  const f = doc.facts;
  const catalog = doc.kind === 'catalog';
  const [rootName, record, name, number] = catalog
    ? ['catalog', 'item', 'name', 'qty']
    : ['feed', 'entry', 'title', 'm:rank'];
  const attrs = catalog ? '@id @cat @price' : '@m:id';
  const recordHolds = `${attrs}; ${name} ${number}${f.notes > 0 ? ` note×${f.notes}` : ''}`;
  const details: Record<string, string> = {
    [record]: recordHolds,
    [name]: 'text',
    [number]: 'text',
    [rootName]: `${record}×${f.n}`,
  };
  const elements: Named[] = [...f.counts].map(([element, count]) => ({ name: element, count }));
  const namespaces = catalog
    ? []
    : [
        { uri: FEED_NS, prefixes: [null], elements: f.totalElements - f.n },
        { uri: META_NS, prefixes: ['m'], elements: f.n, attributes: f.n },
      ];
  const outline = [`/${rootName}: ${record}×${f.n}`, `/${rootName}/${record} ×${f.n}: ${recordHolds}`];
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
        elements: Object.fromEntries(elements.map(({ name: element, count }) => [element, count])),
        details,
        namespaces,
        outline,
        distinctPaths: f.notes > 0 ? 5 : 4,
      };
      // The values depend on the random records: the model checks which fields have them. The
      // legend and the notes are the tool's wording: the text must state each note.
      const { values, legend, notes, ...got } = sc as {
        values?: Record<string, string>;
        legend?: unknown;
        notes?: unknown;
      };
      if (typeof legend !== 'string') return 'structuredContent has no legend';
      if (!isDeepStrictEqual(got, want)) {
        return `structuredContent ${clip(JSON.stringify(sc))} != ${clip(JSON.stringify(want))}`;
      }
      const fields = [...attrs.split(' '), name, number].map((field) => `/${rootName}/${record}/${field}`);
      const missingField = fields.find((field) => typeof values?.[field] !== 'string');
      if (missingField !== undefined) return `structuredContent.values lacks ${missingField}`;
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
      const noted = Array.isArray(notes) ? (notes as string[]) : [];
      const missing =
        lines.find((line) => !text.includes(line)) ??
        noted.find(
          (note) =>
            !note.startsWith('Next time pass "') && !text.includes(note.trim()) && !text.includes(note),
        ) ??
        namespaces.map((ns) => ns.uri).find((uri) => !text.some((l) => l.startsWith(`  ${uri} — `)));
      return missing === undefined ? undefined : `text lacks ${JSON.stringify(missing)}`;
    },
  };
}
