/** A tool's answer as the checks read it: loosely, since a wrong answer may have any shape. */
export interface ToolAnswer {
  content?: unknown;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What is wrong with an answer, or undefined when it is right. */
export type Check = (result: ToolAnswer) => string | undefined;

/** One call of the mix and what its answer must be. */
export interface Plan {
  tool: string;
  args: Record<string, unknown>;
  label: string;
  check: Check;
}

/** The text of an answer's first content block. */
export function textOf(result: ToolAnswer | undefined): string | undefined {
  const content = result?.content;
  if (!Array.isArray(content)) return undefined;
  const text = (content[0] as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : undefined;
}

/** A string with a lone UTF-16 surrogate (not a character; cannot be encoded as UTF-8). */
export const hasLoneSurrogate = (text: unknown): boolean => typeof text === 'string' && !text.isWellFormed();

function deepStrings(value: unknown, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const v of value) deepStrings(v, visit);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) deepStrings(v, visit);
}

/** Every answer must be well-formed Unicode wherever it appears. */
export function unicodeProblem(result: unknown): string | undefined {
  let bad: string | undefined;
  deepStrings(result, (s) => {
    if (bad === undefined && hasLoneSurrogate(s)) {
      const at = s.search(/\p{Surrogate}/u);
      bad = `answer contains a lone surrogate U+${s.charCodeAt(at).toString(16).toUpperCase()} at index ${at} (…${JSON.stringify(s.slice(Math.max(0, at - 12), at + 1))})`;
    }
  });
  return bad;
}

/** A long text cut for a report line. */
export const clip = <T>(text: T): T | string =>
  typeof text === 'string' && text.length > 120 ? `${text.slice(0, 117)}…` : text;

/** A list of values shortened for a report line. */
export const summary = (values: unknown): unknown =>
  Array.isArray(values)
    ? values.length <= 4
      ? values.map(clip)
      : [...values.slice(0, 2).map(clip), `…${values.length} values…`, clip(values.at(-1))]
    : values;

/** Where two texts first differ, for a report line. */
export function firstDifference(a = '', b = ''): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `index ${i}: got ${JSON.stringify(a.slice(i, i + 40))}, want ${JSON.stringify(b.slice(i, i + 40))}`;
}

/** An answer that must be an error whose text matches `pattern`, and then pass `extra`. */
export function expectError(pattern: RegExp, extra?: Check): Check {
  return (result) => {
    if (!result.isError)
      return `expected isError matching ${pattern}, got ${JSON.stringify(clip(textOf(result)))}`;
    const text = textOf(result);
    if (!pattern.test(text ?? ''))
      return `error text ${JSON.stringify(clip(text))} does not match ${pattern}`;
    return extra?.(result);
  };
}
