import { z } from 'zod';
import type { InspectResult } from '../engine/inspect.js';
import { MAX_INSPECT_NAME_CHARS, MAX_INSPECT_NAMES, MAX_INSPECT_NAMESPACES } from '../limits.js';
import { answering, defineTool, documentArguments, encode, toolResult } from './tool.js';

const output = z.object({
  root: z.string(),
  maxDepth: z.int().min(0),
  totalElements: z.int().min(0),
  attributes: z.int().min(0),
  elements: z.array(z.object({ name: z.string(), count: z.int().min(0) })),
  namespaces: z.array(
    z.object({ uri: z.string(), prefixes: z.array(z.string().nullable()), elements: z.int().min(0) }),
  ),
  distinctElements: z.int().min(0).optional(),
  distinctNamespaces: z.int().min(0).optional(),
  truncated: z.literal(true).optional(),
});

export const xmlInspect = defineTool({
  name: 'xml_inspect',
  title: 'Inspect XML structure',
  description:
    "Summarise an XML document's shape: root element, maximum depth, every element name with its count, and the namespaces to pass to xml_query. Call this first on an unfamiliar document.",
  input: z.object(documentArguments),
  output,
  async run({ xml }, { engine, call, cacheAs }) {
    return answering(async () => {
      const result = await engine.run('inspect', { xml: encode(xml), ...(cacheAs ? { cacheAs } : {}) }, call);
      return toolResult(render(result), { ...result });
    });
  },
});

function render(result: InspectResult): string {
  const names = result.distinctElements ?? result.elements.length;
  const lines = [
    `Root element: ${result.root}`,
    `Maximum depth: ${result.maxDepth}`,
    `Elements: ${result.totalElements} in ${names} name${names === 1 ? '' : 's'}; attributes: ${result.attributes}`,
    ...result.elements.map(({ name, count }) => `  ${name}: ${count}`),
  ];
  if (result.elements.length < names) {
    lines.push(
      `  [${names - result.elements.length} less frequent names left out: output budget of ${MAX_INSPECT_NAMES} names / ${MAX_INSPECT_NAME_CHARS} characters. Ask xml_query, e.g. count(//*[local-name()='NAME']).]`,
    );
  }
  if (result.namespaces.length === 0) {
    lines.push('Namespaces: none (unprefixed XPath names match these elements).');
    return lines.join('\n');
  }
  lines.push('Namespaces (XPath needs a prefix for each, even a default namespace):');
  const bindings: Record<string, string> = {};
  result.namespaces.forEach(({ uri, prefixes, elements }, index) => {
    const written = prefixes
      .map((prefix) => (prefix === null ? 'default (no prefix)' : `${prefix}:`))
      .join(', ');
    lines.push(`  ${uri} — ${elements} element${elements === 1 ? '' : 's'}, written as ${written}`);
    const preferred =
      prefixes.find((prefix): prefix is string => prefix !== null && !(prefix in bindings)) ??
      `ns${index + 1}`;
    bindings[preferred] = uri;
  });
  const namespaces = result.distinctNamespaces ?? result.namespaces.length;
  if (result.namespaces.length < namespaces) {
    lines.push(
      `  [${namespaces - result.namespaces.length} more namespaces left out: output budget of ${MAX_INSPECT_NAMESPACES}.]`,
    );
  }
  lines.push(
    `Pass to xml_query as "namespaces": ${JSON.stringify(bindings)} (any prefix works; the URI is what matches).`,
  );
  return lines.join('\n');
}
