import { z } from 'zod';
import type { InspectResult } from '../engine/inspect/inspect.js';
import { NAME_VALUE_INDENT, OUTLINE_VALUE_INDENT, XML_NAMESPACE } from '../engine/marks.js';
import {
  DEFAULT_INSPECT_CHARS,
  MAX_INSPECT_NAME_CHARS,
  MAX_INSPECT_NAMES,
  MAX_OUTPUT_CHARS,
  MIN_OUTPUT_CHARS,
} from '../limits.js';
import { answered, type Line } from './answer.js';
import { answering, type Declares, defineTool, documentArguments, encode } from './tool.js';

const count = z.int().min(0);

const output = z.object({
  root: z.string(),
  maxDepth: count,
  totalElements: count,
  attributes: count,
  elements: z.object({}).catchall(count),
  details: z.object({}).catchall(z.string()),
  namespaces: z.array(
    z.object({
      uri: z.string(),
      prefixes: z.array(z.string().nullable()),
      elements: count,
      attributes: z.int().optional(),
    }),
  ),
  outline: z.array(z.string()),
  values: z.object({}).catchall(z.string()),
  distinctPaths: z.int(),
  distinctElements: count.optional(),
  distinctNamespaces: count.optional(),
  truncated: z.literal(true).optional(),
  legend: z.string(),
});

true satisfies Declares<
  typeof output,
  Omit<InspectResult, 'omitted' | 'unprefixedExample' | 'outlineValues' | 'elementValues' | 'elements'> & {
    elements: Record<string, number>;
    legend: string;
  }
>;

export const xmlInspect = defineTool({
  name: 'xml_inspect',
  title: 'Inspect XML structure',
  description:
    "Summarise an XML document's shape: root, depth, an outline of its element paths with counts, attributes and children and the values they hold (counts, ranges, examples), each element name's count, and the namespaces to pass to xml_query. Call this first on an unfamiliar document.",
  input: z.object({
    ...documentArguments,
    max_chars: z.int().min(MIN_OUTPUT_CHARS).max(MAX_OUTPUT_CHARS).default(DEFAULT_INSPECT_CHARS),
  }),
  output,
  async run({ xml, max_chars }, { engine, call, cacheAs }) {
    return answering(async () => {
      const result = await engine.run(
        'inspect',
        { xml: encode(xml), maxChars: max_chars, ...(cacheAs ? { cacheAs } : {}) },
        call,
      );
      const {
        omitted: _omitted,
        unprefixedExample: _examples,
        outlineValues: _values,
        elementValues: _nameValues,
        ...structured
      } = result;
      // Each name's count keyed by the name: as short as the text's `name: count` line.
      const elements = Object.fromEntries(structured.elements.map(({ name, count }) => [name, count]));
      return answered({
        body: render(result, max_chars),
        facts: { ...structured, elements, legend: legend(result) },
      });
    });
  },
});

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Whether the answer shows what fields hold: the headings then say how to read it. */
const hasValues = (under: string[][]) => under.some((fields) => fields.length > 0);

/**
 * How to read structuredContent's lists, once: the text's headings say it of the text's layout,
 * this of the JSON's fields, in the same notation (docs/adr/0049).
 */
function legend(result: InspectResult): string {
  return `outline: per distinct element path, its count (×N), @attributes, child elements, "text" if it holds text; ×N after an attribute: how many carry it, after a child: how many there are, where that differs from the count; a leaf without attributes is named only on its parent's entry. elements: count per name, most frequent first; details: what each name's elements hold (attributes; children; text).${
    hasValues(result.outlineValues) || hasValues(result.elementValues)
      ? ' values: what an attribute or leaf holds, by path (//NAME: over all its paths): value×count (all values unless `e.g.` or `…+N more` follows), a range, or how many distinct (≈ estimated) with examples; quoted where spaces matter.'
      : ''
  }`;
}

function render(result: InspectResult, maxChars: number): Line[] {
  const names = result.distinctElements ?? result.elements.length;
  const lines: Line[] = [
    `Root element: ${result.root}`,
    `Maximum depth: ${result.maxDepth}`,
    `Elements: ${result.totalElements} in ${plural(names, 'name')}; attributes: ${result.attributes}`,
    ...namespaceLines(result),
  ];
  if (result.outline.length > 0) {
    lines.push(
      `Outline, one line per distinct element path (a leaf without attributes is named only on its parent's line): its count (×N), @attributes, child elements, and "text" when it holds text; ×N after an attribute is how many carry it, after a child how many there are, where that differs from the count${
        hasValues(result.outlineValues)
          ? '. Indented under it, what its attributes and leaves hold: value×count (every value, unless `e.g.` or `…+N more` follows), a range, or how many distinct (≈ estimated) with examples; quoted where spaces matter'
          : ''
      }:`,
      ...result.outline.flatMap((line, i) => [
        line,
        ...(result.outlineValues[i] ?? []).map((field) => `${' '.repeat(OUTLINE_VALUE_INDENT)}${field}`),
      ]),
    );
  }
  if (result.omitted.values > 0) {
    lines.push(
      note`[Values of ${result.omitted.values} of ${result.omitted.fields} fields left out: raise max_chars, or ask xml_query, e.g. distinct-values(//NAME/@ATTR).]`,
    );
  }
  if (result.omitted.paths > 0) {
    lines.push(
      note`[${result.omitted.paths} of ${result.distinctPaths} paths left out (the deepest first): output budget of ${maxChars} characters. Raise max_chars, or ask xml_query, e.g. count(/*/*/*).]`,
    );
  }
  lines.push(
    `Element names: count — attributes; child elements; text (as above), most frequent first${
      hasValues(result.elementValues)
        ? '; indented under a name at several paths, what a field holds over them'
        : ''
    }:`,
  );
  result.elements.forEach(({ name, count }, i) => {
    const details = Object.hasOwn(result.details, name) ? result.details[name] : undefined;
    lines.push(details ? `  ${name}: ${count} — ${details}` : `  ${name}: ${count}`);
    for (const field of result.elementValues[i] ?? []) lines.push(`${' '.repeat(NAME_VALUE_INDENT)}${field}`);
  });
  if (result.elements.length < names) {
    lines.push(
      note`  [${names - result.elements.length} less frequent names left out: output budget of ${maxChars} characters (max_chars; at most ${MAX_INSPECT_NAMES} names / ${MAX_INSPECT_NAME_CHARS} characters of names). Ask xml_query, e.g. count(//*[local-name()='NAME']).]`,
    );
  }
  if (result.omitted.details > 0) {
    lines.push(
      note`  [Attributes and children of ${plural(result.omitted.details, 'less frequent name')} left out: raise max_chars, or ask xml_query, e.g. //NAME[1]/@* and name(//NAME[1]/*).]`,
    );
  }
  if (result.omitted.cutLines > 0) {
    lines.push(
      note`[${plural(result.omitted.cutLines, 'line')} name only the first attributes or children (…+N more): raise max_chars to see more.]`,
    );
  }
  return lines;
}

/** A note said in its place in the text, and listed in structuredContent's `notes`. */
function note(strings: TemplateStringsArray, ...values: unknown[]): Line {
  return {
    note: strings.reduce((text, part, i) => text + part + (i < values.length ? String(values[i]) : ''), ''),
  };
}

/**
 * The longest prefix of the document's own suggested in the binding: a longer one is counted in
 * the budget once, where it is listed (a 50,000-character prefix, said three times, took an
 * answer past max_chars: issue 33 F9), and `ns1` serves as well.
 */
const BINDING_PREFIX_CHARS = 40;

function namespaceLines(result: InspectResult): Line[] {
  const bindable = result.namespaces.filter(({ uri }) => uri !== XML_NAMESPACE);
  const xml = result.namespaces.find(({ uri }) => uri === XML_NAMESPACE);
  const builtIn = xml
    ? `  ${XML_NAMESPACE} — ${plural(xml.attributes ?? 0, 'attribute')}, written as xml: (built in: xml:lang and the like need no binding)`
    : undefined;
  const namespaces = result.distinctNamespaces ?? result.namespaces.length;
  const leftOut =
    result.namespaces.length < namespaces
      ? note`  [${namespaces - result.namespaces.length} more namespaces left out: output budget. Their elements answer *[local-name()='NAME'].]`
      : undefined;
  if (bindable.length === 0) {
    return [
      note`Namespaces: none to bind (unprefixed XPath names match these elements).`,
      ...(builtIn ? [builtIn] : []),
      ...(leftOut ? [leftOut] : []),
    ];
  }
  const lines: Line[] = ['Namespaces (XPath needs a prefix for each, even a default namespace):'];
  const bindings: Record<string, string> = {};
  const unprefixed: string[] = [];
  bindable.forEach(({ uri, prefixes, elements, attributes }, index) => {
    const written = prefixes
      .map((prefix) => (prefix === null ? 'default (no prefix)' : `${prefix}:`))
      .join(', ');
    const uses = [
      ...(elements > 0 || !attributes ? [plural(elements, 'element')] : []),
      ...(attributes ? [plural(attributes, 'attribute')] : []),
    ].join(', ');
    lines.push(`  ${uri} — ${uses}, written as ${written}`);
    const preferred =
      prefixes.find(
        (prefix): prefix is string =>
          prefix !== null && prefix.length <= BINDING_PREFIX_CHARS && !Object.hasOwn(bindings, prefix),
      ) ?? `ns${index + 1}`;
    Object.defineProperty(bindings, preferred, { value: uri, enumerable: true });
    const found = result.unprefixedExample.get(uri);
    const example = found !== undefined && found.length <= 40 ? found : 'NAME';
    if (found !== undefined) unprefixed.push(`//${preferred}:${example}, not //${example}`);
  });
  if (builtIn) lines.push(builtIn);
  if (leftOut) lines.push(leftOut);
  lines.push(
    note`Pass to xml_query as "namespaces": ${JSON.stringify(bindings)} (any prefix works; the URI is what matches).`,
  );
  if (unprefixed.length > 0) {
    lines.push(note`Elements in a default namespace need a prefix in XPath too: ${unprefixed.join('; ')}.`);
  }
  return lines;
}
