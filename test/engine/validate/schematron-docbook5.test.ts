import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validate } from '../../../src/engine/validate/validate.js';
import { service } from '../../support/services.js';

/*
 * DocBook 5's own Schematron rules (Debian docbook5-xml: Schematron 1.5, XPath 1.0) on two
 * articles, one valid and one broken on purpose, against `xmllint --schematron` (Debian
 * libxml2-utils). xmllint cannot run the whole schema: its rule contexts are libxml2 patterns,
 * which take no predicate (`db:firstterm[@linkend]` "failed to compile", and then the whole
 * schema), and XPath 1.0 has no `current()`, which the cross-reference rules use. So the two are
 * compared on the rules xmllint can run, and this server alone runs the rest.
 */

const sch = service('docbook5-sch');
const xmllint = service('xmllint');
const FIXTURES = 'test/fixtures/docbook5';

/** docbook.sch without the patterns xmllint cannot run: a predicate in a context, or `current()`. */
function xmllintRunnable(schema: string): string {
  return schema.replace(/<s:pattern\b[\s\S]*?<\/s:pattern>/g, (pattern) =>
    /context="[^"]*\[/.test(pattern) || /current\(\)/.test(pattern) ? '' : pattern,
  );
}

/** Each finding as "line: message", sorted. */
function ours(file: string, schema: string): string[] {
  const result = validate(readFileSync(join(FIXTURES, file)), schema);
  return (result.violations ?? []).map((v) => `${v.line}: ${v.message}`).sort();
}

describe.skipIf(!sch.path)(`DocBook 5's docbook.sch${sch.skipped}`, () => {
  const schema = sch.path ? readFileSync(sch.path, 'utf8') : '';

  it('finds nothing in a valid article, and in a broken one each rule it breaks, cross-references included', () => {
    expect(ours('valid-article.xml', schema)).toEqual([]);
    expect(ours('broken-article.xml', schema)).toEqual(BROKEN_FINDINGS);
  });

  describe.skipIf(!xmllint.path)(`against xmllint --schematron${xmllint.skipped}`, () => {
    it('cannot compile the whole schema (a predicate in a rule context)', () => {
      const run = spawnSync(
        xmllint.path as string,
        ['--noout', '--schematron', sch.path as string, join(FIXTURES, 'valid-article.xml')],
        { encoding: 'utf8' },
      );
      expect(run.stderr).toMatch(/Failed to compile context expression db:firstterm\[@linkend\]/);
    });

    it.each([
      ['valid-article.xml', 0],
      ['broken-article.xml', 3],
    ])('gives the same findings on %s for the rules it can run (%i)', (file, count) => {
      const runnable = xmllintRunnable(schema);
      const folder = mkdtempSync(join(tmpdir(), 'oxml-docbook5-'));
      const schemaFile = join(folder, 'docbook-runnable.sch');
      writeFileSync(schemaFile, runnable);
      const run = spawnSync(
        xmllint.path as string,
        ['--noout', '--schematron', schemaFile, join(FIXTURES, file)],
        {
          encoding: 'utf8',
        },
      );
      rmSync(folder, { recursive: true, force: true });
      const theirs = [...run.stderr.matchAll(/^\S+ line (\d+): (.*)$/gm)]
        .map(([, line, message]) => `${line}: ${(message as string).replace(/\s+/g, ' ').trim()}`)
        .sort();
      expect(run.stderr).not.toMatch(/failed to compile/);
      expect(theirs).toHaveLength(count);
      expect(ours(file, runnable)).toEqual(theirs);
    });
  });
});

const BROKEN_FINDINGS = [
  '3: @linkend on firstterm must point to a glossentry.',
  '3: @linkend on footnoteref must point to a footnote.',
  '3: footnote must not occur in the descendants of footnote',
  '4: sidebar must not occur in the descendants of sidebar',
  '5: tip must not occur in the descendants of note',
];
