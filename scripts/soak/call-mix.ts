import { type Plan, type ToolAnswer, unicodeProblem } from './answer.js';
import { planCheck } from './check-call.js';
import type { Corpus, Doc } from './documents.js';
import { planFormat } from './format-call.js';
import { planInspect } from './inspect-call.js';
import { planQuery } from './query-call.js';
import { rng } from './random.js';
import { planValidate } from './validate-call.js';

export interface MixOptions {
  /** The share of calls made on a ~2 MB document. */
  hugeRate?: number;
  /** Only calls of these tools. */
  tools?: readonly string[] | undefined;
  /** The document of every call. */
  doc?: Doc | undefined;
}

/** One call of the mix, drawn from `seed`: half queries, the rest inspect, check, validate, format. */
export function planCall(
  corpus: Corpus,
  seed: number,
  { hugeRate = 0.01, tools, doc: only }: MixOptions = {},
): Plan {
  if (tools) {
    // Only some tools: draw again (boundedly) until the call is one of them.
    for (let attempt = 0; attempt < 1000; attempt++) {
      const plan = planCall(corpus, (seed + attempt * 7919) >>> 0, { hugeRate, doc: only });
      if (tools.includes(plan.tool)) return plan;
    }
    throw new Error(`no call of ${tools.join(', ')} drawn`);
  }
  const r = rng(seed);
  const huge = only ? corpus.big.includes(only) : r.chance(hugeRate);
  const doc = only ?? r.pick(huge ? corpus.big : corpus.docs);
  const roll = r.next();
  if (roll < 0.5) return planQuery(r, doc, huge);
  if (roll < 0.62) return planInspect(doc);
  if (roll < 0.75) return planCheck(r, doc, huge);
  if (roll < 0.88) return planValidate(r, doc, huge);
  return planFormat(r, doc);
}

/** Checks one answer: the call's own expectation, then well-formed Unicode everywhere. */
export function checkAnswer(plan: Plan, result: ToolAnswer): string | undefined {
  return plan.check(result) ?? unicodeProblem(result);
}
