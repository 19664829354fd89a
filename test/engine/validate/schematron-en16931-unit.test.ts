import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validate } from '../../../src/engine/validate/validate.js';

/*
 * The rule-by-rule unit tests of the EN 16931 UBL rules (test/fixtures/en16931/unit, EUPL 1.2):
 * each `<test>` holds an invoice or credit note and the rule ids it must trigger as an error or a
 * warning, or must not trigger (`success`). The issue asks for at least 99 % of them to hold.
 */

const FIXTURES = 'test/fixtures/en16931';
const SCHEMA = readFileSync(join(FIXTURES, 'EN16931-UBL-validation-preprocessed.sch'), 'utf8');

interface Expectation {
  file: string;
  description: string;
  document: string;
  success: string[];
  error: string[];
  warning: string[];
}

function expectations(): Expectation[] {
  const all: Expectation[] = [];
  for (const folder of ['Invoice-unit-UBL', 'CreditNote-unit-UBL']) {
    for (const name of readdirSync(join(FIXTURES, 'unit', folder)).sort()) {
      const text = readFileSync(join(FIXTURES, 'unit', folder, name), 'utf8');
      for (const [, body] of text.matchAll(/<test>([\s\S]*?)<\/test>/g)) {
        const assert = /<assert>([\s\S]*?)<\/assert>/.exec(body as string)?.[1] ?? '';
        const ids = (kind: string) =>
          [...assert.matchAll(new RegExp(`<${kind}>([^<]*)</${kind}>`, 'g'))].map((m) =>
            (m[1] as string).trim(),
          );
        all.push({
          file: `${folder}/${name}`,
          description: /<description>([\s\S]*?)<\/description>/.exec(assert)?.[1]?.trim() ?? '',
          document: (body as string).replace(/<assert>[\s\S]*?<\/assert>/, '').trim(),
          success: ids('success'),
          error: ids('error'),
          warning: ids('warning'),
        });
      }
    }
  }
  return all;
}

/** Why an expectation does not hold ('' when it does). */
function miss(expectation: Expectation): string {
  let found: Record<string, number>;
  let flags: Map<string, string | undefined>;
  try {
    const result = validate(expectation.document, SCHEMA);
    found = result.schematron?.by_id ?? {};
    flags = new Map(
      result.violations.map((finding) => [
        ('id' in finding ? finding.id : '') ?? '',
        'flag' in finding ? finding.flag : undefined,
      ]),
    );
  } catch (error) {
    return `failed: ${(error as Error).message.slice(0, 200)}`;
  }
  const wrong = [
    ...expectation.success.filter((id) => found[id]).map((id) => `${id} fired`),
    ...expectation.error.filter((id) => !found[id]).map((id) => `${id} did not fire`),
    ...expectation.warning.filter((id) => !found[id]).map((id) => `${id} did not fire`),
    ...expectation.error
      .filter((id) => found[id] && flags.get(id) === 'warning')
      .map((id) => `${id} is a warning`),
  ];
  return wrong.join(', ');
}

describe('the EN 16931 UBL unit tests', () => {
  const all = expectations();
  const missed: string[] = [];
  // One test a file, so that no one test holds the whole suite's time on a busy machine.
  const files = [...new Set(all.map((expectation) => expectation.file))];
  it.each(files)('runs %s', (file) => {
    for (const expectation of all.filter((candidate) => candidate.file === file)) {
      const why = miss(expectation);
      if (why !== '') missed.push(`${expectation.file} (${expectation.description}): ${why}`);
    }
  });

  it('hold for at least 99 % of their expectations', () => {
    const rate = 1 - missed.length / all.length;
    console.log(
      `EN 16931 UBL unit tests: ${all.length - missed.length} of ${all.length} hold (${(rate * 100).toFixed(2)} %)\n${missed.join('\n')}`,
    );
    expect(all.length).toBeGreaterThan(700);
    expect(rate, missed.join('\n')).toBeGreaterThanOrEqual(0.99);
  });
});
