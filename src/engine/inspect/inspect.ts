import type { XmlDocument } from 'libxml2-wasm';
import {
  DEFAULT_INSPECT_CHARS,
  MAX_INSPECT_NAME_CHARS,
  MAX_INSPECT_NAMES,
  MAX_INSPECT_NAMESPACES,
} from '../../limits.js';
import { nodeFields } from '../libxml2/tree.js';
import { CUT_MARK, NAME_VALUE_INDENT, OUTLINE_VALUE_INDENT } from '../marks.js';
import { withDocument, type XmlSource } from '../parse.js';
import { FIELDS_PER_LINE, type Field, fieldsOf, type NameShape, nameFieldsOf, ownsLine } from './fields.js';
import { profileText } from './profile-text.js';
import { type DocumentShape, documentShape, type NamespaceShape, type PathShape } from './shape.js';

export { XML_NAMESPACE } from '../marks.js';

export interface NamespaceUse {
  uri: string;
  /** Prefixes the document writes it with; `null` stands for the default namespace. */
  prefixes: Array<string | null>;
  /** Elements in this namespace. */
  elements: number;
  /** Attributes in this namespace (`xsi:schemaLocation`, `xlink:href`); absent for none. */
  attributes?: number;
}

export interface InspectResult {
  root: string;
  /** Root element is level 1; every node below it (element, text, comment, PI) one deeper. */
  maxDepth: number;
  /** Element names as written, with their counts, most frequent first (within the budget). */
  elements: Array<{ name: string; count: number }>;
  /**
   * Element name → what its elements hold, over all its paths, in the outline's notation
   * (`@id×2; name tag×2; text`): for the listed names in their order while the budget lasts; a
   * name whose elements hold nothing has no entry.
   */
  details: Record<string, string>;
  namespaces: NamespaceUse[];
  totalElements: number;
  attributes: number;
  /**
   * Distinct element paths, one line each (`/a/b ×12: @id; c d×3; text`), in document order:
   * shallow paths first when the budget runs out; a leaf without attributes is only named on
   * its parent's line.
   */
  outline: string[];
  /** How many distinct element paths the document has. */
  distinctPaths: number;
  /**
   * What the fields of the outline's paths hold, within the budget: the field as a path
   * (`/records/record/@id`, `/records/record/name` for a leaf named on its parent's line,
   * `/records/record/price/text()` for the text of a path with a line of its own) → its values in
   * profile-text.ts's notation (`books×1342 music×1320`, `integers 0–499, 500 distinct`); then
   * a name's fields over its paths (`//title`, `//title/@role`), for names at two paths or more.
   */
  values: Record<string, string>;
  /** For the text: under each outline line, its fields' values (`@id: 7910 distinct, e.g. …`). */
  outlineValues: string[][];
  /** For the text: under each listed name, its fields' values over its paths (`text (3 paths): …`). */
  elementValues: string[][];
  /** Present when `elements` or `namespaces` were cut to the budget: how many there are in all. */
  distinctElements?: number;
  distinctNamespaces?: number;
  /** Something was left out; `omitted` says what. */
  truncated?: true;
  /** What the budget left out, for the text to say (not part of the structured answer). */
  omitted: Omitted;
  /** Namespace URI → its most frequent element name written without a prefix (for the text). */
  unprefixedExample: Map<string, string>;
}

export interface Omitted {
  /** Paths neither given a line nor named on a line that is given. */
  paths: number;
  /** Names listed without the attributes and children they have. */
  details: number;
  /** Lines whose attributes or children were cut (`…+N more`). */
  cutLines: number;
  /** Fields of the outline's paths whose values were not shown, and how many there are. */
  values: number;
  fields: number;
}

export interface InspectOptions {
  /** Characters the answer's lists may take; the text adds a few fixed lines. */
  maxChars?: number;
  /** Read the fields' values (the default); false reads names and counts only (the benchmark's baseline). */
  values?: boolean;
}

/**
 * Characters set aside from `maxChars` for the text's fixed lines (root, depth, totals, section
 * headings, the notes saying what was left out), so that the whole text stays within budget.
 */
export const INSPECT_FIXED_CHARS = 1_300;

/**
 * What the text's sentences about values take (the outline heading's second sentence, the name
 * heading's clause, the note saying how many fields' values were left out): claimed from the
 * lists' budget when the first value is shown, so a small budget keeps its outline lines.
 */
export const VALUES_NOTE_CHARS = 460;

/** What the namespaces may take of a budget smaller than this (listedNamespaces). */
const NAMESPACE_FLOOR_CHARS = 2_000;

/** The shortest outline line (`/a`): below this much budget the outline stops looking. */
const MIN_LINE_CHARS = 3;

export function inspect(xml: XmlSource, options: InspectOptions = {}): InspectResult {
  return withDocument(xml, 'query', (doc) => inspectDocument(doc, options));
}

/** `inspect` on a document parsed for querying, which stays the caller's. */
export function inspectDocument(doc: XmlDocument, options: InspectOptions = {}): InspectResult {
  const shape = documentShape(doc, nodeFields(), { values: options.values ?? true });
  const maxChars = options.maxChars ?? DEFAULT_INSPECT_CHARS;
  const fullRoot = shape.root ? (shape.names[shape.root.name] as string) : '';
  // A name may be 50,000 characters: the root line takes at most a quarter of the budget, cut
  // with the mark like any value, so the answer stays within max_chars whatever the names (issue 24).
  const rootChars = Math.floor(maxChars / 4);
  const root =
    fullRoot.length <= rootChars
      ? fullRoot
      : `${fullRoot.slice(0, Math.max(0, rootChars - CUT_MARK.length))}${CUT_MARK}`.toWellFormed();
  const budget = new Budget(maxChars - INSPECT_FIXED_CHARS - root.length);
  // One line (a paragraph with a hundred kinds of inline element) never takes more than this.
  const lineCap = Math.max(200, Math.floor(maxChars / 16));

  const namespaces = listedNamespaces(shape.namespaces, budget);
  const { preorder, byName } = pathsInOrder(shape);
  const names = byName
    .filter((name) => name !== undefined)
    .sort(
      (a, b) =>
        b.count - a.count || ((shape.names[a.name] as string) < (shape.names[b.name] as string) ? -1 : 1),
    );
  // The claim order (ADR 0017, 0037, 0043): the outline up to a quarter of what is left; the most
  // frequent names with their counts up to a quarter, their attributes and children up to a
  // third; the values of the lines shown, then of the names' fields, each up to half; then the
  // less frequent names and their details; what is still left, the deeper lines and their values.
  const lines = preorder.filter(ownsLine).sort(byDepth);
  const lineTexts = new Map<PathShape, { text: string; cut: boolean; path: string }>();
  const shown = new Set<PathShape>();
  const fillOutline = (limit: number) => {
    const allowance = budget.share(limit);
    for (const path of lines) {
      if (allowance.left < MIN_LINE_CHARS) break;
      // Its path alone does not fit: skipped without writing it, so the walk over many deep
      // paths stays linear (issue 33 F8).
      if (shown.has(path) || path.chars + 3 > allowance.left) continue;
      const line = remembered(lineTexts, path, () => pathLine(path, shape.names, lineCap));
      if (allowance.claim(jsonChars(line.text) + 1)) shown.add(path);
    }
  };
  const listed: NameShape[] = [];
  let nameChars = 0;
  const listNames = (limit: number) => {
    const allowance = budget.share(limit);
    while (listed.length < Math.min(names.length, MAX_INSPECT_NAMES)) {
      const name = names[listed.length] as NameShape;
      const written = shape.names[name.name] as string;
      // The larger of the text's `  NAME: N` with its line break and structuredContent's `"NAME":N,`.
      const cost = Math.max(written.length + 5, jsonChars(written) + 2) + String(name.count).length;
      if (nameChars + written.length > MAX_INSPECT_NAME_CHARS || !allowance.claim(cost)) break;
      nameChars += written.length;
      listed.push(name);
    }
  };
  const detailsByName = new Map<NameShape, Details>();
  const detailed = new Set<NameShape>();
  const fillDetails = (limit: number) => {
    const allowance = budget.share(limit);
    for (const name of listed) {
      if (detailed.has(name)) continue;
      const detail = remembered(detailsByName, name, () => detailsOf(name, shape.names, lineCap));
      // `"NAME":"DETAIL",` (the text's ` — DETAIL` is shorter).
      const cost = jsonChars(shape.names[name.name] as string) + jsonChars(detail.text) + 2;
      if (detail.text !== '' && allowance.claim(cost)) detailed.add(name);
    }
  };
  const shownFields = new Set<Field>();
  let noted = false;
  /**
   * Claims each field's line if it fits, the sentences about values with the first: the larger
   * of the text's indented line and structuredContent's `"KEY":"VALUES",` (`keyOf`).
   */
  const showFields = (
    fields: Field[],
    allowance: Allowance,
    indent: number,
    keyOf: (field: Field) => string,
  ) => {
    for (const field of fields.slice(0, FIELDS_PER_LINE)) {
      if (shownFields.has(field)) continue;
      if (!noted) {
        if (allowance.left < 2 * VALUES_NOTE_CHARS) return;
        noted = allowance.claim(VALUES_NOTE_CHARS);
      }
      field.text ??= `${field.label}: ${profileText(field.profile, field.occurrences, lineCap)}`;
      const json = jsonChars(keyOf(field)) + jsonChars(field.text.slice(field.label.length + 2)) + 2;
      if (allowance.claim(Math.max(indent + field.text.length + 1, json))) shownFields.add(field);
    }
  };
  /** Fills, within a limit, the values of the owners' (lines', names') fields, the owners shown first. */
  const valuesOf = <K>(
    owners: K[],
    isShown: (owner: K) => boolean,
    fieldsFor: (owner: K) => Field[],
    indent: number,
    keyOf: (owner: K, field: Field) => string,
  ) => {
    const byOwner = new Map<K, Field[]>();
    const fill = (limit: number) => {
      const allowance = budget.share(limit);
      for (const owner of owners) {
        if (allowance.left < MIN_LINE_CHARS) break;
        if (isShown(owner))
          showFields(
            remembered(byOwner, owner, () => fieldsFor(owner)),
            allowance,
            indent,
            (field) => keyOf(owner, field),
          );
      }
    };
    return { byOwner, fill };
  };
  const pathValues = valuesOf(
    lines,
    (path) => shown.has(path),
    (path) => fieldsOf(path, shape.names),
    OUTLINE_VALUE_INDENT,
    (path, field) => `${lineTexts.get(path)?.path}/${field.key}`,
  );
  const nameValues = valuesOf(
    listed,
    (name) => detailed.has(name),
    (name) => nameFieldsOf(name, shape.names),
    NAME_VALUE_INDENT,
    (_name, field) => field.key,
  );
  fillOutline(Math.floor(budget.left / 4));
  listNames(Math.floor(budget.left / 4));
  fillDetails(Math.floor(budget.left / 3));
  pathValues.fill(Math.floor(budget.left / 2));
  nameValues.fill(Math.floor(budget.left / 2));
  listNames(budget.left);
  fillDetails(budget.left);
  fillOutline(budget.left);
  pathValues.fill(budget.left);

  let cutLines = 0;
  let omittedDetails = 0;
  const details: Array<[string, string]> = [];
  const values: Array<[string, string]> = [];
  const elementValues: string[][] = [];
  const elements = listed.map((name) => {
    const element = { name: shape.names[name.name] as string, count: name.count };
    const detail = detailsByName.get(name);
    const under: string[] = [];
    elementValues.push(under);
    if (!detail || detail.text === '') return element;
    if (!detailed.has(name)) {
      omittedDetails++;
      return element;
    }
    if (detail.cut) cutLines++;
    details.push([element.name, detail.text]);
    for (const field of nameValues.byOwner.get(name) ?? []) {
      if (!shownFields.has(field) || field.text === undefined) continue;
      under.push(field.text);
      values.push([field.key, field.text.slice(field.label.length + 2)]);
    }
    return element;
  });
  const outline: string[] = [];
  const outlineValues: string[][] = [];
  const pathEntries: Array<[string, string]> = [];
  let shownPathFields = 0;
  for (const path of preorder) {
    const line = shown.has(path) ? lineTexts.get(path) : undefined;
    if (!line) continue;
    outline.push(line.text);
    if (line.cut) cutLines++;
    const under: string[] = [];
    for (const field of pathValues.byOwner.get(path) ?? []) {
      if (!shownFields.has(field) || field.text === undefined) continue;
      under.push(field.text);
      shownPathFields++;
      pathEntries.push([`${line.path}/${field.key}`, field.text.slice(field.label.length + 2)]);
    }
    outlineValues.push(under);
  }
  let fieldCount = 0;
  for (const path of preorder) if (ownsLine(path)) fieldCount += fieldsOf(path, shape.names, false).length;

  // Covered: paths with a line, and the leaves named on one.
  let covered = shown.size;
  for (const path of shown) {
    for (const child of path.children?.values() ?? []) if (!ownsLine(child)) covered++;
  }
  const omitted: Omitted = {
    paths: shape.paths - covered,
    details: omittedDetails,
    cutLines,
    values: fieldCount - shownPathFields,
    fields: fieldCount,
  };
  const unprefixedExample = new Map<string, string>();
  const defaults = shape.namespaces.filter((ns) => ns.prefixes.includes(null)).length;
  for (const name of names) {
    if (unprefixedExample.size === defaults) break;
    const ns = shape.defaultNamespaceOf.get(name.name);
    if (ns && !unprefixedExample.has(ns.uri)) unprefixedExample.set(ns.uri, shape.names[name.name] as string);
  }

  const result: InspectResult = {
    root,
    maxDepth: shape.maxDepth,
    elements,
    details: Object.fromEntries(details),
    namespaces,
    totalElements: shape.totalElements,
    attributes: shape.totalAttributes,
    outline,
    distinctPaths: shape.paths,
    values: Object.fromEntries([...pathEntries, ...values]),
    outlineValues,
    elementValues,
    omitted,
    unprefixedExample,
  };
  if (listed.length < names.length || namespaces.length < shape.namespaces.length) {
    result.distinctElements = names.length;
    result.distinctNamespaces = shape.namespaces.length;
  }
  if (
    result.distinctElements !== undefined ||
    omitted.paths > 0 ||
    omitted.details > 0 ||
    omitted.cutLines > 0 ||
    omitted.values > 0
  ) {
    result.truncated = true;
  }
  return result;
}

class Budget {
  left: number;
  constructor(chars: number) {
    this.left = chars;
  }
  fits(chars: number): boolean {
    return chars <= this.left;
  }
  take(chars: number): void {
    this.left -= chars;
  }
  /** At most `limit` of what is left, taken from this budget as it is claimed. */
  share(limit: number): Allowance {
    return new Allowance(this, Math.min(limit, this.left));
  }
}

class Allowance {
  readonly #budget: Budget;
  left: number;
  constructor(budget: Budget, chars: number) {
    this.#budget = budget;
    this.left = chars;
  }
  /** Takes `chars` if they fit. */
  claim(chars: number): boolean {
    if (chars > this.left) return false;
    this.left -= chars;
    this.#budget.take(chars);
    return true;
  }
}

/**
 * A string's length in JSON, quotes and escapes included: what it takes in structuredContent,
 * which a client may show its model instead of the text (docs/adr/0049), so the budget counts
 * the larger of the two forms.
 */
function jsonChars(text: string): number {
  return JSON.stringify(text).length;
}

/** The map's value for `key`, made and kept the first time it is asked for. */
function remembered<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/**
 * The namespaces in the order first seen, up to MAX_INSPECT_NAMESPACES and the budget: each
 * costs its line and its place in the suggested binding, about twice its URI. No query can name
 * a namespaced element without its binding, so they may take NAMESPACE_FLOOR_CHARS however small
 * the budget.
 */
function listedNamespaces(all: NamespaceShape[], budget: Budget): NamespaceUse[] {
  const allowance = new Budget(Math.max(budget.left, NAMESPACE_FLOOR_CHARS));
  const listed: NamespaceUse[] = [];
  for (const use of all.slice(0, MAX_INSPECT_NAMESPACES)) {
    const cost = 2 * use.uri.length + 70 + use.prefixes.reduce((sum, p) => sum + (p ?? '').length + 24, 0);
    if (!allowance.fits(cost)) break;
    allowance.take(cost);
    budget.take(cost);
    const entry: NamespaceUse = { uri: use.uri, prefixes: [...use.prefixes], elements: use.elements };
    if (use.attributes > 0) entry.attributes = use.attributes;
    listed.push(entry);
  }
  return listed;
}

/** Every path in document order (a parent before its children), and the paths by name. */
function pathsInOrder(shape: DocumentShape): { preorder: PathShape[]; byName: Array<NameShape | undefined> } {
  const preorder: PathShape[] = [];
  const byName: Array<NameShape | undefined> = new Array(shape.names.length);
  const stack: PathShape[] = shape.root ? [shape.root] : [];
  while (stack.length > 0) {
    const path = stack.pop() as PathShape;
    preorder.push(path);
    const name = byName[path.name];
    if (name) {
      name.count += path.count;
      name.text ||= path.text;
      name.more ??= [];
      name.more.push(path);
    } else {
      byName[path.name] = {
        name: path.name,
        count: path.count,
        text: path.text,
        first: path,
        more: undefined,
      };
    }
    if (!path.children) continue;
    const children = [...path.children.values()];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as PathShape);
  }
  return { preorder, byName };
}

/** Shallow paths first, and among paths as deep the most frequent (the sort is stable). */
function byDepth(a: PathShape, b: PathShape): number {
  return a.depth - b.depth || b.count - a.count;
}

interface Details {
  /** `@a @b×3; c d×2; text`, or '' when the name has none of these. */
  text: string;
  /** A list stopped at the cap. */
  cut: boolean;
}

/** Name (index into `names`) → count, in the order first seen: what `facts` lists. */
interface Counted {
  size: number;
  entries(): Iterable<[number, number]>;
}

const NONE: Counted = { size: 0, entries: () => [] };

function childCounts(path: PathShape): Counted {
  const children = path.children;
  if (!children) return NONE;
  return {
    size: children.size,
    *entries() {
      for (const child of children.values()) yield [child.name, child.count];
    },
  };
}

/** The attributes and children of a name's elements, merged over its paths (one path: as is). */
function detailsOf(name: NameShape, strings: string[], cap: number): Details {
  const { first, more } = name;
  if (!more) return facts(name.count, first.attributes ?? NONE, childCounts(first), name.text, strings, cap);
  const attributes = new Map<number, number>();
  const children = new Map<number, number>();
  for (const path of [first, ...more]) {
    for (const [attr, n] of path.attributes ?? []) attributes.set(attr, (attributes.get(attr) ?? 0) + n);
    for (const child of path.children?.values() ?? []) {
      children.set(child.name, (children.get(child.name) ?? 0) + child.count);
    }
  }
  return facts(name.count, attributes, children, name.text, strings, cap);
}

function pathLine(
  path: PathShape,
  strings: string[],
  cap: number,
): { text: string; cut: boolean; path: string } {
  const steps: string[] = [];
  for (let step: PathShape | undefined = path; step && step.depth > 0; step = step.parent) {
    steps.push(strings[step.name] as string);
  }
  const detail = facts(path.count, path.attributes ?? NONE, childCounts(path), path.text, strings, cap);
  const count = path.count === 1 ? '' : ` ×${path.count}`;
  const tail = detail.text === '' ? '' : `: ${detail.text}`;
  const written = `/${steps.reverse().join('/')}`;
  return { text: `${written}${count}${tail}`, cut: detail.cut, path: written };
}

/**
 * The notation shared by outline lines and name lines: attributes (`@id`, or `@id×3` when only
 * three of the elements carry it), then child elements (`title`, or `para×140` when their number
 * differs from the elements'), then `text`; each list stops at `cap` characters with `…+N more`.
 */
function facts(
  count: number,
  attributes: Counted,
  children: Counted,
  text: boolean,
  strings: string[],
  cap: number,
): Details {
  let cut = false;
  let length = 0;
  const list = (items: Counted, prefix: string, what: string): string => {
    const words: string[] = [];
    for (const [id, n] of items.entries()) {
      const word = `${prefix}${strings[id] as string}${n === count ? '' : `×${n}`}`;
      if (length + word.length + 1 > cap) {
        words.push(`…+${items.size - words.length} more ${what}`);
        cut = true;
        break;
      }
      length += word.length + 1;
      words.push(word);
    }
    return words.join(' ');
  };
  const parts = [list(attributes, '@', 'attributes'), list(children, '', 'children'), text ? 'text' : ''];
  return { text: parts.filter((part) => part !== '').join('; '), cut };
}
