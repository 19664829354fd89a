import { isDeepStrictEqual } from 'node:util';
import { CUT_MARK } from '../../src/engine/marks.js';
import type { QueryResult } from '../../src/engine/query/query.js';
import { DEFAULT_OUTPUT_CHARS, MAX_OUTPUT_VALUES } from '../../src/limits.js';
import { answerText, valueNotes } from '../../src/tools/answer-text.js';
import { type Check, clip, hasLoneSurrogate, summary, textOf, unicodeProblem } from './answer.js';

interface Budgeted {
  values: string[];
  truncated: boolean;
  /** Other values accepted: the cut one code unit longer, where the naive cut splits a surrogate pair. */
  alternatives: string[][];
}

/**
 * The output budget (docs/behaviour.md §6), worked out here from the values the model knows:
 * values in document order until MAX_OUTPUT_VALUES values or `maxChars` characters, a value
 * counted as it is written in a JSON array (quotes, escapes, its comma); the value that crosses
 * the character budget is cut so that it and CUT_MARK fill what is left (left out when the mark
 * would not fit); `count` stays exact. A cut must not split a surrogate pair, so
 * where the naive cut would, the cut one code unit shorter or longer is the accepted answer.
 */
function budgeted(values: readonly string[], maxChars: number): Budgeted {
  const out: string[] = [];
  let chars = 0;
  for (const value of values) {
    const remaining = maxChars - chars;
    if (out.length >= MAX_OUTPUT_VALUES || remaining <= 0)
      return { values: out, truncated: true, alternatives: [] };
    const cost = JSON.stringify(value).length + 1;
    if (cost > remaining) {
      let keep = remaining - CUT_MARK.length - 3;
      for (;;) {
        // A trial cut is priced whole, never ending in half a pair: JSON would write a lone high
        // surrogate as a six-character escape, and the shrink would overshoot what fits.
        const trial = value.slice(0, keep);
        const whole = hasLoneSurrogate(trial) ? trial.slice(0, -1) : trial;
        const over = keep <= 0 ? 0 : JSON.stringify(whole + CUT_MARK).length + 1 - remaining;
        if (over <= 0) break;
        keep -= over;
      }
      if (keep <= 0) return { values: out, truncated: true, alternatives: [] };
      const naive = value.slice(0, keep);
      if (!hasLoneSurrogate(naive)) {
        return { values: [...out, naive + CUT_MARK], truncated: true, alternatives: [] };
      }
      return {
        values: [...out, value.slice(0, keep - 1) + CUT_MARK],
        truncated: true,
        alternatives: [[...out, value.slice(0, keep + 1) + CUT_MARK]],
      };
    }
    out.push(value);
    chars += cost;
  }
  return { values: out, truncated: false, alternatives: [] };
}

export interface QueryExpectation {
  xpath: string;
  maxChars?: number | undefined;
  /** The sentence that explains an empty answer (docs/adr/0018), on the answer's last line. */
  hint?: string | undefined;
}

/**
 * An xml_query answer: type, exact count, the values within budget, and the text built from them,
 * then the truncation note where the budget cut, then `hint` where one is expected, and nothing
 * else; structuredContent's `notes` are the lines the text adds after the values. The values are
 * the model's own; only the layout of their text is the tool's (`answerText`, `valueNotes`, whose
 * wording its own tests pin), so a change of wording does not fail the soak while a wrong value,
 * count or cut still does.
 */
export function expectQuery(
  type: QueryResult['type'],
  allValues: readonly string[],
  { xpath, maxChars = DEFAULT_OUTPUT_CHARS, hint }: QueryExpectation,
): Check {
  const count = type === 'node-set' ? allValues.length : 1;
  const cut = budgeted(allValues, maxChars);
  return (result) => {
    if (result.isError) return `unexpected isError: ${textOf(result)}`;
    const { notes, ...sc } = result.structuredContent ?? {};
    const candidates = [cut.values, ...cut.alternatives];
    const matching = candidates.find((values) =>
      isDeepStrictEqual(sc, { type, count, values, ...(cut.truncated ? { truncated: true } : {}) }),
    );
    if (!matching) {
      const got = sc ? { ...sc, values: summary(sc.values) } : sc;
      const want = { type, count, values: summary(cut.values), truncated: cut.truncated || undefined };
      const lone = unicodeProblem(sc);
      return `${lone ? `${lone}; ` : ''}structuredContent ${JSON.stringify(got)} != expected ${JSON.stringify(want)}`;
    }
    const answer = { type, count, values: matching, ...(cut.truncated ? { truncated: true as const } : {}) };
    const body = answerText(answer, xpath);
    const full = textOf(result);
    if (typeof full !== 'string') return 'no text';
    const noted = Array.isArray(notes) ? (notes as string[]) : [];
    if (full !== [body, ...noted].join('\n')) {
      return `text is not the values and structuredContent's notes: ${JSON.stringify(clip(full))}`;
    }
    const base = [body, ...valueNotes(answer)].filter((line) => line !== '').join('\n');
    let text: string = full;
    if (hint !== undefined) {
      if (typeof text !== 'string' || !text.endsWith(`\n${hint}`)) {
        return `text does not end with the hint ${JSON.stringify(clip(hint))}: ${JSON.stringify(clip(text))}`;
      }
      text = text.slice(0, -(hint.length + 1));
    }
    if (!cut.truncated) {
      return text === base
        ? undefined
        : `text ${JSON.stringify(clip(text))} != ${JSON.stringify(clip(base))}`;
    }
    if (typeof text !== 'string' || !text.startsWith(`${base}\n[`) || !text.endsWith(']')) {
      return `truncated text is not the values and a note: ${JSON.stringify(clip(text))}`;
    }
    const note = text.slice(base.length + 1);
    if (note.includes('\n')) return `truncation note spans lines: ${JSON.stringify(clip(note))}`;
    const shown = matching.length;
    const cutShown = matching.filter((v) => v.endsWith(CUT_MARK)).length;
    if (type === 'node-set' && shown < count && !note.includes(`Showing ${shown} of ${count} values`)) {
      return `truncation note does not give ${shown} of the exact count ${count}: ${JSON.stringify(note)}`;
    }
    if (type === 'node-set' && cutShown > 0 && !note.includes(`${cutShown} of the ${shown} shown cut`)) {
      return `truncation note does not say a value was cut: ${JSON.stringify(note)}`;
    }
    if (type !== 'node-set' && !note.startsWith('[The value was cut')) {
      return `truncation note does not say the value was cut: ${JSON.stringify(note)}`;
    }
    return undefined;
  };
}
