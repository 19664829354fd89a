/**
 * How validation time and answer size grow with the number of violations (no timed assertions:
 * it reports). Each document is an order of N items whose price is not an xs:decimal, so every
 * item is one violation; the phases are timed separately to show where the time goes.
 *
 *   npx tsx bench/validation-violations.ts [N ...]     (default 10000 30000 60000)
 *
 * `structuredContent` is the answer's JSON; the text the model reads is about as long.
 */
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';
import { ORDER_SCHEMA } from '../test/support/order-schema.js';

captureWasmMemory();
const { validate } = await import('../src/engine/validate/validate.js');

const XSD = ORDER_SCHEMA;

const badOrder = (n: number) => `<order>\n${'<item><price>x</price></item>\n'.repeat(n)}</order>`;

// One small run first, so the first figure does not include compiling the engine's code.
validate(badOrder(100), XSD);
const counts = process.argv.slice(2).map(Number);
for (const n of counts.length > 0 ? counts : [10_000, 30_000, 60_000]) {
  const xml = badOrder(n);
  const started = performance.now();
  const result = validate(xml, XSD);
  const seconds = (performance.now() - started) / 1000;
  const json = JSON.stringify(result).length;
  // Before `total` existed every violation was listed.
  const total = (result as { total?: number }).total ?? result.violations.length;
  console.log(
    `${n} bad values: ${seconds.toFixed(2)} s, ${total} violations counted, ${result.violations.length} listed, structuredContent ${json} chars`,
  );
}
