import type { PathShape } from './shape.js';
import { ValueProfile } from './value-profile.js';

/**
 * The fields of one line whose values are looked at: one element of 10^5 attributes would
 * otherwise work out 10^5 values' notation to show the few hundred that fit.
 */
export const FIELDS_PER_LINE = 64;

/** An element name and the paths it appears at. */
export interface NameShape {
  name: number;
  count: number;
  text: boolean;
  first: PathShape;
  /** Its other paths, if any. */
  more: PathShape[] | undefined;
}

/**
 * One field whose values a line shows: on a path's line an attribute, the text of a leaf named on
 * the line, or its own text; on a name's line an attribute or the text over the name's paths.
 */
export interface Field {
  /** `@id`, `name`, `text()`; on a name's line `text (3 paths)`, `@role (2 paths)`. */
  label: string;
  /** The field's key in `values`: below the line's path (`@id`, `name`, `text()`), or `//title/@role`. */
  key: string;
  profile: ValueProfile;
  occurrences: number;
  /** `label: values`, once worked out. */
  text?: string;
}

/** A path has a line of its own unless it is a leaf without attributes (its parent's line names it). */
export function ownsLine(path: PathShape): boolean {
  return path.depth === 1 || path.children !== undefined || path.attributes !== undefined;
}

/** Whether the path's text is a field: it holds text and never an element (mixed content reads better by query). */
function holdsTextField(path: PathShape): path is PathShape & { textValues: ValueProfile } {
  return path.text && path.textValues !== undefined && path.children === undefined;
}

/**
 * The fields whose values a path's line shows: its attributes, its leaves that hold text and have
 * no line of their own, and its own text when it holds text and no element.
 * `named` false counts them without building labels.
 */
export function fieldsOf(path: PathShape, strings: string[], named = true): Field[] {
  const fields: Field[] = [];
  const field = (label: string, profile: ValueProfile, occurrences: number) => {
    fields.push({ label: named ? label : '', key: named ? label : '', profile, occurrences });
  };
  for (const [attr, profile] of path.attributeValues ?? []) {
    field(`@${strings[attr] as string}`, profile, profile.count);
  }
  for (const child of path.children?.values() ?? []) {
    if (!ownsLine(child) && holdsTextField(child))
      field(strings[child.name] as string, child.textValues, child.count);
  }
  if (holdsTextField(path)) field('text()', path.textValues, path.count);
  return fields;
}

/**
 * The fields a name's line shows (ADR 0043): each attribute, and the text, that the name's
 * elements carry at two paths or more, their profiles merged; a field at one path only is its
 * path's, which the outline shows. Attributes first seen first, then the text.
 */
export function nameFieldsOf(name: NameShape, strings: string[]): Field[] {
  if (!name.more) return [];
  const paths = [name.first, ...name.more];
  const written = strings[name.name] as string;
  const byAttribute = new Map<number, ValueProfile[]>();
  for (const path of paths) {
    for (const [attr, profile] of path.attributeValues ?? []) {
      const profiles = byAttribute.get(attr);
      if (profiles) profiles.push(profile);
      else byAttribute.set(attr, [profile]);
    }
  }
  const fields: Field[] = [];
  for (const [attr, profiles] of byAttribute) {
    if (profiles.length < 2) continue;
    const merged = merge(profiles);
    const attribute = `@${strings[attr] as string}`;
    fields.push({
      label: `${attribute} (${profiles.length} paths)`,
      key: `//${written}/${attribute}`,
      profile: merged,
      occurrences: merged.count,
    });
  }
  const texts = paths.filter(holdsTextField);
  if (texts.length >= 2) {
    fields.push({
      label: `text (${texts.length} paths)`,
      key: `//${written}`,
      profile: merge(texts.map((path) => path.textValues)),
      occurrences: texts.reduce((sum, path) => sum + path.count, 0),
    });
  }
  return fields;
}

function merge(profiles: ValueProfile[]): ValueProfile {
  const merged = new ValueProfile();
  for (const profile of profiles) merged.merge(profile);
  return merged;
}
