import { MAX_SCHEMA_CHAIN } from '../../limits.js';
import { EngineError } from '../errors.js';
import { attributesOf, localName, NodeType, namespaceOf, walk } from '../libxml2/tree.js';
import { evaluate } from '../query/query.js';

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
  /** Derivations nested inside one another within it (anonymous types), at least 1. */
  weight: number;
  references: string[];
}

/**
 * Refuses a schema whose definitions chain through one another further than MAX_SCHEMA_CHAIN
 * links, before libxml2 compiles it. The compiler recurses once per link of such a chain on a
 * small WebAssembly stack with no overflow check: a few thousand links overwrite libxml2's own
 * data and corrupt the engine for every later call (docs/adr/0011-guard-libxml2s-stack.md). The
 * measure may count more links than libxml2 follows, never fewer: a definition counts as many
 * links as it nests derivations (anonymous types inside anonymous types), and definitions that
 * refer to one another in a cycle (legal through nested content) count together.
 */
export function refuseDeepSchemaChains(schemaPtr: number, limit = MAX_SCHEMA_CHAIN): void {
  // Every link but the last is one of these elements: a schema with few cannot chain far, and
  // only large schemas pay for the walk (~5 µs a node).
  const links = Number(evaluate(schemaPtr, `count(${LINK_ELEMENTS})`, { xs: XSD }).values[0]) + 1;
  if (links <= limit) return;
  const chain = longestChain(collectComponents(schemaPtr));
  if (chain.links <= limit) return;
  throw new EngineError({
    code: 'limit-exceeded',
    message: `The \`xsd\` argument chains its definitions ${chain.links} links deep (from \`${chain.first}\` to \`${chain.last}\`, through base, itemType, memberTypes, group or attributeGroup ref, substitutionGroup, or nested anonymous types); the limit is ${limit}. Derive from a definition nearer the start of the chain, or split the schema, and call again.`,
  });
}

const LINK_ELEMENTS =
  '//xs:restriction | //xs:extension | //xs:list | //xs:union | //xs:group[@ref] | //xs:attributeGroup[@ref] | //xs:element[@substitutionGroup]';

const DERIVATIONS = new Set(['restriction', 'extension', 'list', 'union']);

/** The only elements the walk reads attributes of; every other element costs one name read. */
const RELEVANT = new Set([...Object.keys(DECLARES), ...DERIVATIONS]);

function collectComponents(schemaPtr: number): Map<string, Component> {
  const components = new Map<string, Component>();
  let current: Component | undefined;
  // Derivation elements among each depth's element and its ancestors inside the definition.
  const nested: number[] = [];
  walk(schemaPtr, (node, type, depth) => {
    if (type !== NodeType.XML_ELEMENT_NODE) return;
    const element = localName(node);
    const inXsd = RELEVANT.has(element) && namespaceOf(node)?.uri === XSD;
    nested[depth] = (depth > 2 ? (nested[depth - 1] ?? 0) : 0) + (inXsd && DERIVATIONS.has(element) ? 1 : 0);
    if (!inXsd) {
      if (depth === 2) current = undefined;
      return;
    }
    if (depth === 2) {
      const kind = DECLARES[element];
      const name = kind && attributeValue(node, 'name');
      current = kind && name !== undefined ? { name, weight: 1, references: [] } : undefined;
      if (current && kind) components.set(key(kind, current.name), current);
    }
    if (!current) return;
    current.weight = Math.max(current.weight, nested[depth] ?? 0);
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

interface Chain {
  links: number;
  first: string;
  last: string;
}

/**
 * The heaviest path through the references, each cycle taken as one node weighing all its
 * members (so no order of declarations can hide part of a chain behind a cycle), without recursion.
 */
function longestChain(components: Map<string, Component>): Chain {
  const groups = stronglyConnected(components);
  // Tarjan's algorithm finds a group only after every group it refers to: one pass in that order.
  const best = new Map<number, { links: number; last: string }>();
  let heaviest: Chain = { links: 0, first: '', last: '' };
  groups.members.forEach((members, group) => {
    let weight = 0;
    let below = { links: 0, last: components.get(members[0] as string)?.name ?? '' };
    for (const id of members) {
      weight += components.get(id)?.weight ?? 1;
      for (const reference of components.get(id)?.references ?? []) {
        const target = groups.of.get(reference);
        if (target === undefined || target === group) continue;
        const chain = best.get(target);
        if (chain && chain.links > below.links) below = chain;
      }
    }
    const chain = { links: weight + below.links, last: below.last };
    best.set(group, chain);
    if (chain.links > heaviest.links) {
      heaviest = {
        links: chain.links,
        first: components.get(members[0] as string)?.name ?? '',
        last: chain.last,
      };
    }
  });
  return heaviest;
}

/** Tarjan's strongly connected components, iteratively; groups come out referred-to first. */
function stronglyConnected(components: Map<string, Component>): {
  members: string[][];
  of: Map<string, number>;
} {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const members: string[][] = [];
  const of = new Map<string, number>();
  let counter = 0;
  for (const start of components.keys()) {
    if (index.has(start)) continue;
    const frames: Array<{ id: string; next: number }> = [{ id: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { id: string; next: number };
      const references = components.get(frame.id)?.references ?? [];
      if (frame.next < references.length) {
        const reference = references[frame.next++] as string;
        if (!components.has(reference)) continue;
        if (!index.has(reference)) {
          index.set(reference, counter);
          low.set(reference, counter++);
          stack.push(reference);
          onStack.add(reference);
          frames.push({ id: reference, next: 0 });
        } else if (onStack.has(reference)) {
          low.set(frame.id, Math.min(low.get(frame.id) as number, index.get(reference) as number));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id) as number, low.get(frame.id) as number));
      if (low.get(frame.id) !== index.get(frame.id)) continue;
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        of.set(member, members.length);
        group.push(member);
      } while (member !== frame.id);
      members.push(group.reverse());
    }
  }
  return { members, of };
}
