/**
 * The hand-off to a worker and back on its own, for a 1 KB `xml_query` (ADR 0026): CPU of the
 * whole process (both threads) and wall time per round trip, for each way of carrying the
 * request, the worker answering at once with a query-sized result.
 *
 *   npx tsx bench/hand-off.ts [rounds=6] [trips=3000]
 *
 * - `postMessage, document in a SharedArrayBuffer`: what the pool does (a held document's bytes)
 * - `postMessage, document as a string` / `… as bytes, cloned` / `… as bytes, transferred`
 * - `Atomics, worker blocked in Atomics.wait`: the request and reply as JSON and bytes in one
 *   shared buffer; the main thread waits with `Atomics.waitAsync`
 * - `Atomics, both sides Atomics.waitAsync`: the worker keeps its event loop (and its port) free
 *
 * Rounds alternate the variants; the report is each one's median over the rounds.
 */
import { Worker } from 'node:worker_threads';
import { median } from './stats.js';

const [roundsText = '6', tripsText = '3000'] = process.argv.slice(2);
const ROUNDS = Number(roundsText);
const TRIPS = Number(tripsText);

const XML = `<records variant="000000">${'<record id="r1"><name>x</name></record>'.repeat(24)}</records>`;
const ARGS = {
  xpath: 'count(//record)',
  namespaces: {},
  budget: { maxChars: 4000, maxValues: 1000 },
  output: 'values',
  cacheAs: '6f1c2d3e-0000-4000-8000-000000000000',
};
const REPLY = `{ id: message.id, ok: true, result: { type: 'number', count: 1, values: ['24'] }, heapBytes: 16777216 }`;

const PORT_WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (message) => parentPort.postMessage(${REPLY}));`;

// The control words: [0] requests sent, [1] replies written, [2] bytes of the message.
const ATOMICS_WORKER = (blocking: boolean) => `
const { parentPort, workerData } = require('node:worker_threads');
const control = new Int32Array(workerData, 0, 4);
const data = new Uint8Array(workerData, 16);
const decoder = new TextDecoder();
const encoder = new TextEncoder();
let seen = 0;
parentPort.on('message', () => {});
function serve() {
  seen = Atomics.load(control, 0);
  const message = JSON.parse(decoder.decode(data.subarray(0, control[2])));
  control[2] = encoder.encodeInto(JSON.stringify(${REPLY}), data).written;
  Atomics.store(control, 1, seen);
  Atomics.notify(control, 1);
}
${
  blocking
    ? 'for (;;) { Atomics.wait(control, 0, seen); serve(); }'
    : 'const loop = () => { const w = Atomics.waitAsync(control, 0, seen); (w.async ? w.value : Promise.resolve()).then(() => { serve(); loop(); }); }; loop();'
}`;

type Trip = () => Promise<unknown>;

function portVariant(make: () => [unknown, ArrayBuffer[]]): { worker: Worker; trip: Trip } {
  const worker = new Worker(PORT_WORKER, { eval: true });
  let id = 0;
  const trip: Trip = () =>
    new Promise((resolve) => {
      const [xml, transfer] = make();
      worker.once('message', resolve);
      worker.postMessage({ id: ++id, op: 'query', args: { xml, ...ARGS } }, transfer);
    });
  return { worker, trip };
}

function atomicsVariant(blocking: boolean): { worker: Worker; trip: Trip } {
  const shared = new SharedArrayBuffer(16 + 64 * 1024);
  const control = new Int32Array(shared, 0, 4);
  const data = new Uint8Array(shared, 16);
  const worker = new Worker(ATOMICS_WORKER(blocking), { eval: true, workerData: shared });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let id = 0;
  const trip: Trip = async () => {
    control[2] = encoder.encodeInto(
      JSON.stringify({ id: ++id, op: 'query', args: { xml: XML, ...ARGS } }),
      data,
    ).written;
    const sent = Atomics.add(control, 0, 1) + 1;
    Atomics.notify(control, 0);
    const wait = Atomics.waitAsync(control, 1, sent - 1);
    if (wait.async) await wait.value;
    return JSON.parse(decoder.decode(data.subarray(0, control[2])));
  };
  return { worker, trip };
}

const bytes = (shared: boolean) => {
  const view = new Uint8Array(shared ? new SharedArrayBuffer(XML.length) : new ArrayBuffer(XML.length));
  Buffer.from(view.buffer).write(XML, 'latin1');
  return view;
};

const variants: Record<string, { worker: Worker; trip: Trip }> = {
  'postMessage, document in a SharedArrayBuffer': portVariant(() => [bytes(true), []]),
  'postMessage, document as a string': portVariant(() => [XML, []]),
  'postMessage, document as bytes, cloned': portVariant(() => [bytes(false), []]),
  'postMessage, document as bytes, transferred': portVariant(() => {
    const view = bytes(false);
    return [view, [view.buffer as ArrayBuffer]];
  }),
  'Atomics, worker blocked in Atomics.wait': atomicsVariant(true),
  'Atomics, both sides Atomics.waitAsync': atomicsVariant(false),
};

// A pending Atomics.waitAsync does not keep Node's event loop alive.
const alive = setInterval(() => {}, 1_000);
const results = new Map<string, { cpu: number[]; wall: number[] }>();
for (const { trip } of Object.values(variants)) for (let i = 0; i < 500; i++) await trip();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, { trip }] of Object.entries(variants)) {
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < TRIPS; i++) await trip();
    const cpu = process.cpuUsage(cpuBefore);
    const entry = results.get(name) ?? { cpu: [], wall: [] };
    entry.cpu.push((cpu.user + cpu.system) / TRIPS);
    entry.wall.push(((performance.now() - start) * 1000) / TRIPS);
    results.set(name, entry);
  }
}
console.log('| hand-off of a 1 KB query | CPU µs per round trip (both threads) | wall µs |');
console.log('|---|---|---|');
for (const [name, { cpu, wall }] of results) {
  console.log(`| ${name} | ${median(cpu).toFixed(1)} | ${median(wall).toFixed(1)} |`);
}
clearInterval(alive);
await Promise.all(Object.values(variants).map(({ worker }) => worker.terminate()));
