/**
 * `__proto__` is a legal namespace prefix (an NCName) and `JSON.parse` keeps it as an own key,
 * but zod builds a record by assignment, and assigning `__proto__` on a plain object sets its
 * prototype instead (a string is ignored): the binding vanished and the prefix was then reported
 * as unbound. So an object argument's own `__proto__` key is renamed for validation to a name
 * not otherwise in that object, and defined back as an own key on the parsed value.
 */
const PROTO = '__proto__';

export interface ShelteredArguments {
  /** The arguments to validate, with each object argument's `__proto__` key renamed. */
  raw: unknown;
  /** Field → the name its `__proto__` key was given. */
  renamed: Map<string, string>;
  /** Gives the caller's objects their `__proto__` key back, once validation is done. */
  undo(): void;
}

/**
 * Renames the key in place, in the caller's own objects, and `undo` renames it back: copying an
 * object instead would cost a second for one of a million keys, before any bound is checked.
 */
export function shelterProtoKeys(raw: unknown): ShelteredArguments {
  const renamed = new Map<string, string>();
  const undos: Array<() => void> = [];
  const undo = () => {
    for (const step of undos) step();
  };
  if (!isPlainObject(raw)) return { raw, renamed, undo };
  for (const [field, value] of Object.entries(raw)) {
    if (!isPlainObject(value) || !Object.hasOwn(value, PROTO)) continue;
    // A name no other key of this object has; it stays an NCName, like the key it stands for.
    let stand = `${PROTO}_`;
    while (Object.hasOwn(value, stand)) stand += '_';
    const binding = Object.getOwnPropertyDescriptor(value, PROTO)?.value;
    delete value[PROTO];
    defineOwn(value, stand, binding);
    renamed.set(field, stand);
    undos.push(() => {
      delete value[stand];
      defineOwn(value, PROTO, binding);
    });
  }
  return { raw, renamed, undo };
}

/** Gives the parsed object arguments their `__proto__` key back, as an own data property. */
export function restoreProtoKeys(args: Record<string, unknown>, renamed: Map<string, string>): void {
  for (const [field, stand] of renamed) {
    const value = args[field];
    if (!isPlainObject(value) || !Object.hasOwn(value, stand)) continue;
    const restored: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) defineOwn(restored, key === stand ? PROTO : key, item);
    args[field] = restored;
  }
}

/** The path of a validation issue as the caller wrote it. */
export function originalPath(path: PropertyKey[], renamed: Map<string, string>): PropertyKey[] {
  const [field, key, ...rest] = path;
  if (typeof field !== 'string' || key === undefined || renamed.get(field) !== key) return path;
  return [field, PROTO, ...rest];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
