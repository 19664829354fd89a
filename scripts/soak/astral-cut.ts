import type { Plan } from './answer.js';
import { expectQuery } from './query-expectation.js';
import { rng } from './random.js';

/**
 * A deterministic case: a value made of astral characters (surrogate pairs) cut by max_chars
 * exactly between the two halves of a pair.
 */
export function planAstralCut(seed: number): Plan {
  const r = rng(seed);
  const unit = r.pick(['ab😀', 'x🚀', 'é😀z']);
  const value = unit.repeat(60);
  // The cut keeps max_chars UTF-16 code units; end it right after a high surrogate.
  const maxChars = value.indexOf('\ud83d', 100) + 1;
  const xml = `<r><t>${value}</t></r>`;
  const xpath = r.chance(0.5) ? '//t' : 'string(//t)';
  return {
    tool: 'xml_query',
    args: { xml, xpath, max_chars: maxChars },
    label: 'query.budget-astral-cut',
    check: expectQuery(xpath === '//t' ? 'node-set' : 'string', [value], { xpath, maxChars }),
  };
}
