import { XmlNodeType } from 'libxml2-wasm/lib/libxml2.mjs';
import { EngineError } from './errors.js';
import { MAX_SCHEMA_CHAIN } from './limits.js';
import { evaluate } from './query.js';
import { attributesOf, localName, namespaceOf, walk } from './tree.js';

const XSD = 'http://www.w3.org/2001/XMLSchema';

type ComponentKind = 'type' | 'group' | 'attributeGroup' | 'element';

/** Top-level schema components by the element that declares them. */
const DECLARES: Record<string, ComponentKind | undefined> = {
  simpleType: 'type',
  complexType: 'type',
  group: 'group',
  attributeGroup: 'attributeGroup',
  element: 'element',
};

/**
 * The references libxml2's schema compiler follows by recursion, one call per link: type
 * derivation (restriction and extension bases, list item types, union members), model group and
 * attribute group references, and substitution groups. Element `type` and `ref` are left out on
 * purpose: content may legally refer back to itself, and the compiler does not recurse along them.
 */
function referencesOf(element: string, attribute: string): ComponentKind | undefined {
  if (attribute === 'base' && (element === 'restriction' || element === 'extension')) return 'type';
  if (attribute === 'itemType' && element === 'list') return 'type';
  if (attribute === 'memberTypes' && element === 'union') return 'type';
  if (attribute === 'ref' && element === 'group') return 'group';
  if (attribute === 'ref' && element === 'attributeGroup') return 'attributeGroup';
  if (attribute === 'substitutionGroup' && element === 'element') return 'element';
  return undefined;
}

interface Component {
  name: string;
  references: string[];
}

/**
 * Refuses a schema whose definitions chain through one another further than MAX_SCHEMA_CHAIN
 * links, before libxml2 compiles it. The compiler recurses once per link of such a chain on a
 * small WebAssembly stack with no overflow check: a few thousand links overwrite libxml2's own
 * data and corrupt the engine for every later call (docs/security-model.md). The chain is
 * measured on the parsed schema document, without recursion: the longest path through the
 * references above, a cycle counting once (libxml2 reports circular definitions itself).
 */
export function refuseDeepSchemaChains(schemaPtr: number, limit = MAX_SCHEMA_CHAIN): void {
  // Each link is a top-level definition of its own: a schema with few cannot chain far, and
  // only large schemas pay for the walk (~5 µs a node).
  const declared = Number(evaluate(schemaPtr, 'count(/xs:schema/*[@name])', { xs: XSD }).values[0]);
  if (declared <= limit) return;
  const components = collectComponents(schemaPtr);
  const chain = longestChain(components);
  if (chain.length <= limit) return;
  const first = chain[0] ?? '';
  const last = chain[chain.length - 1] ?? '';
  throw new EngineError({
    code: 'limit-exceeded',
    message: `The \`xsd\` argument chains ${chain.length} definitions through one another (\`${first}\` → … → \`${last}\`, by base, itemType, memberTypes, group or attributeGroup ref, or substitutionGroup); the limit is ${limit}. Derive from a definition nearer the start of the chain, or split the schema, and call again.`,
  });
}

/** The only elements the walk reads attributes of; every other element costs one name read. */
const RELEVANT = new Set([...Object.keys(DECLARES), 'restriction', 'extension', 'list', 'union']);

function collectComponents(schemaPtr: number): Map<string, Component> {
  const components = new Map<string, Component>();
  let current: Component | undefined;
  walk(schemaPtr, (node, type, depth) => {
    if (type !== XmlNodeType.XML_ELEMENT_NODE) return;
    const element = localName(node);
    if (!RELEVANT.has(element) || namespaceOf(node)?.uri !== XSD) {
      if (depth === 2) current = undefined;
      return;
    }
    if (depth === 2) {
      const kind = DECLARES[element];
      const name = kind && attributeValue(node, 'name');
      current = kind && name !== undefined ? { name, references: [] } : undefined;
      if (current && kind) components.set(key(kind, current.name), current);
    }
    if (!current) return;
    for (const [attribute, value] of attributesOf(
      node,
      (name) => referencesOf(element, name) !== undefined,
    )) {
      const kind = referencesOf(element, attribute) as ComponentKind;
      for (const qname of value.trim().split(/\s+/)) {
        if (qname !== '') current.references.push(key(kind, qname.slice(qname.indexOf(':') + 1)));
      }
    }
  });
  return components;
}

function attributeValue(element: number, name: string): string | undefined {
  return attributesOf(element, (attribute) => attribute === name)[0]?.[1];
}

/**
 * Components are matched by kind and local name, whatever namespace a prefix gives them: a
 * reference can then only ever be counted to more definitions than it names, never fewer, so no
 * spelling of prefixes shortens a chain, and resolving each one would double the walk's cost.
 */
function key(kind: ComponentKind, name: string): string {
  return `${kind} ${name}`;
}

/** The longest chain of references, as component names, found by an iterative depth-first search. */
function longestChain(components: Map<string, Component>): string[] {
  // For each component: links in the longest chain starting there, and the next one on it.
  const length = new Map<string, number>();
  const next = new Map<string, string>();
  const onPath = new Set<string>();
  let best: string | undefined;
  for (const start of components.keys()) {
    if (length.has(start)) continue;
    const stack: Array<{ id: string; index: number }> = [{ id: start, index: 0 }];
    onPath.add(start);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as { id: string; index: number };
      const references = components.get(frame.id)?.references ?? [];
      const reference = references[frame.index++];
      if (reference !== undefined) {
        if (components.has(reference) && !length.has(reference) && !onPath.has(reference)) {
          onPath.add(reference);
          stack.push({ id: reference, index: 0 });
        }
        continue;
      }
      let longest = 1;
      for (const ref of references) {
        const below = length.get(ref);
        if (below !== undefined && below + 1 > longest) {
          longest = below + 1;
          next.set(frame.id, ref);
        }
      }
      length.set(frame.id, longest);
      onPath.delete(frame.id);
      stack.pop();
      if (best === undefined || longest > (length.get(best) ?? 0)) best = frame.id;
    }
  }
  const chain: string[] = [];
  for (let id = best; id !== undefined; id = next.get(id)) {
    chain.push(components.get(id)?.name ?? id);
  }
  return chain;
}
