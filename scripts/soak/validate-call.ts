import { isDeepStrictEqual } from 'node:util';
import { clip, expectError, type Plan, textOf } from './answer.js';
import { CATALOG_XSD } from './catalog-schema.js';
import { type Doc, type DocRecord, serialize } from './documents.js';
import type { Random } from './random.js';

interface Violation {
  path?: string;
  line?: number;
  message?: string;
}

const violationsOf = (sc: Record<string, unknown> | undefined): Violation[] =>
  Array.isArray(sc?.violations) ? (sc.violations as Violation[]) : [];

/**
 * An xml_validate call against CATALOG_XSD: a feed is the wrong root; a catalog is valid, or has
 * 1–3 records broken in a known way, or is checked against a schema that names a type that does
 * not exist.
 */
export function planValidate(r: Random, doc: Doc, huge: boolean): Plan {
  if (doc.kind === 'feed') {
    return {
      tool: 'xml_validate',
      args: { xml: doc.xml, xsd: CATALOG_XSD },
      label: 'validate.wrong-root',
      check: expectError(/^Invalid: 1 violation of the schema\./, (res) => {
        const v = violationsOf(res.structuredContent);
        return res.structuredContent?.valid === false &&
          v.length === 1 &&
          /No matching global declaration/.test(v[0]?.message ?? '')
          ? undefined
          : `structuredContent ${JSON.stringify(res.structuredContent)}`;
      }),
    };
  }
  const roll = r.next();
  if (huge || roll < 0.6) {
    return {
      tool: 'xml_validate',
      args: { xml: doc.xml, xsd: CATALOG_XSD },
      label: 'validate.valid',
      check(result) {
        if (result.isError) return `unexpected isError: ${clip(textOf(result))}`;
        return isDeepStrictEqual(result.structuredContent, { valid: true, total: 0, violations: [] }) &&
          textOf(result) === 'Valid: the document conforms to the schema.'
          ? undefined
          : `got ${JSON.stringify(result.structuredContent)} / ${textOf(result)}`;
      },
    };
  }
  if (roll < 0.9) return planViolations(r, doc);
  return {
    tool: 'xml_validate',
    args: { xml: doc.xml, xsd: CATALOG_XSD.replace('type="xs:integer"', 'type="xs:nosuch"') },
    label: 'validate.broken-schema',
    // Sent again by handle, the same refusal names the `schema` argument it came by.
    check: expectError(/^The (`xsd` argument|text behind `schema`) is not a usable XML Schema: .*nosuch/),
  };
}

/** 1–3 records get a qty that is not an integer, or lose their required id. */
function planViolations(r: Random, doc: Doc): Plan {
  const k = r.int(1, Math.min(3, doc.records.length));
  const chosen = new Set<number>();
  while (chosen.size < k) chosen.add(r.int(0, doc.records.length - 1));
  const dropId = r.chance(0.3);
  const records = doc.records.map((record, i): DocRecord => {
    if (!chosen.has(i)) return record;
    if (dropId) return { ...record, attrs: record.attrs.replace(/^id="[^"]*" /, '') };
    return {
      ...record,
      children: record.children.map((c) => (c.tag === 'qty' ? { tag: 'qty', text: `x${i}` } : c)),
    };
  });
  const want = [...chosen]
    .sort((a, b) => a - b)
    .map((i) =>
      dropId
        ? { path: `/catalog/item[${i + 1}]`, line: 1, pattern: /attribute 'id' is required/ }
        : {
            path: `/catalog/item[${i + 1}]/qty`,
            line: 1,
            pattern: new RegExp(`'x${i}' is not a valid value of the atomic type 'xs:integer'`),
          },
    );
  return {
    tool: 'xml_validate',
    args: { xml: serialize(doc, 0, 'self-closing', records), xsd: CATALOG_XSD },
    label: dropId ? 'validate.missing-attribute' : 'validate.bad-integer',
    check: expectError(new RegExp(`^Invalid: ${k} violations? of the schema\\.`), (res) => {
      const v = violationsOf(res.structuredContent);
      const ok =
        res.structuredContent?.valid === false &&
        v.length === want.length &&
        want.every(
          (w, i) => v[i]?.path === w.path && v[i]?.line === w.line && w.pattern.test(v[i]?.message ?? ''),
        );
      return ok
        ? undefined
        : `violations ${clip(JSON.stringify(v))} != ${JSON.stringify(want.map((w) => w.path))}`;
    }),
  };
}
