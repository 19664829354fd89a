/*
 * An argument a tool does not have is refused, not ignored: `{"query": "//a"}` for `xpath`, or
 * `namespace` for `namespaces` beside a prefixed expression, would otherwise be dropped in
 * silence and the call answered as if it had not been sent (issue 33). The sentence names the
 * argument, the one meant where that is plain, and the tool's arguments.
 */

/** What models write for an argument under another name. */
const MEANT: Readonly<Record<string, string>> = {
  query: 'xpath',
  expression: 'xpath',
  expr: 'xpath',
  xpath_expression: 'xpath',
  text: 'xml',
  content: 'xml',
  source: 'xml',
  document_text: 'xml',
  handle: 'document',
  schema_text: 'xsd',
  indentation: 'indent',
};

/** The refusal for the first argument the tool does not have, or undefined when it has them all. */
export function unknownArgument(
  toolName: string,
  known: ReadonlySet<string>,
  raw: unknown,
): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const unknown = Object.keys(raw).find((key) => !known.has(key));
  if (unknown === undefined) return undefined;
  const meant = meantFor(unknown, known);
  const shown = unknown.length <= 40 ? unknown : `${unknown.slice(0, 40)}…`.toWellFormed();
  return `${toolName} has no argument \`${shown}\`${meant ? `; did you mean \`${meant}\`?` : '.'} Its arguments are ${[...known].map((key) => `\`${key}\``).join(', ')}.`;
}

function meantFor(unknown: string, known: ReadonlySet<string>): string | undefined {
  const lower = unknown.toLowerCase();
  const synonym = MEANT[lower];
  if (synonym !== undefined && known.has(synonym)) return synonym;
  let best: string | undefined;
  let bestDistance = 3;
  for (const key of known) {
    const distance = editDistance(lower, key);
    if (distance < bestDistance) [best, bestDistance] = [key, distance];
  }
  return best;
}

/** Levenshtein distance, for names of a few characters (an argument name past 40 is never close). */
function editDistance(a: string, b: string): number {
  if (a.length > 40) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
