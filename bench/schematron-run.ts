/**
 * The measurement bench/schematron-saxon.ts bundles and runs under plain Node: the EN 16931 UBL
 * rules on one invoice through the engine's `validate`, the first call (compiling the rules) and
 * then repeat calls, as a schema held by handle gets them on one worker. Prints one JSON line.
 *   node <bundle> <invoice file> <schema file> <repeats>
 */
import { readFileSync } from 'node:fs';
import { captureWasmMemory } from '../src/engine/libxml2/memory.js';

captureWasmMemory();

const { validate } = await import('../src/engine/validate/validate.js');

const [invoiceFile = '', schemaFile = '', repeats = '3'] = process.argv.slice(2);
const xml = readFileSync(invoiceFile);
const schema = readFileSync(schemaFile);
const timed = () => {
  const start = performance.now();
  const result = validate(new Uint8Array(xml), new Uint8Array(schema));
  return { ms: performance.now() - start, ids: result.schematron?.by_id ?? {} };
};
const first = timed();
const again = Array.from({ length: Number(repeats) }, timed)
  .map((run) => run.ms)
  .sort((a, b) => a - b);
console.log(JSON.stringify({ first: first.ms, repeat: again[Math.floor(again.length / 2)], ids: first.ids }));
