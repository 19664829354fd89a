#!/usr/bin/env node
/**
 * Cold start of two built CLIs over stdio, paired: each run spawns `node CLI`, sends `initialize`,
 * times the reply, then sends `notifications/initialized` and one `xml_query` on a tiny document
 * and times its answer (the first call waits for the engine worker), closes stdin and times the
 * exit. On Linux it also reads the CPU time the server's threads have used by the first answer
 * (`/proc/PID/task/<thread>/schedstat`), which a busy machine inflates far less than wall time. A and B alternate (A B, B A, …) so a busy
 * machine slows both alike; the report is the median of the per-pair ratios B/A.
 *
 *   node scripts/cold-start.mjs A/dist/cli.js B/dist/cli.js [pairs=30]
 *
 * To compare a change with the code before it, build the earlier commit into another folder inside
 * the checkout (so it finds node_modules and package.json), e.g.
 * `git stash && npx tsc -p tsconfig.build.json --outDir dist-before && git stash pop`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { FIRST_CALL, initializeLine } from './stdio-first-call.mjs';

const [cliA, cliB, pairsText = '30'] = process.argv.slice(2);
if (!cliA || !cliB || !/^\d+$/.test(pairsText)) {
  process.stderr.write('usage: node scripts/cold-start.mjs A/dist/cli.js B/dist/cli.js [pairs=30]\n');
  process.exit(2);
}

const INITIALIZE = initializeLine('cold-start');

/** Milliseconds on a CPU so far, summed over the process's threads; NaN where /proc is missing. */
function cpuMs(pid) {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    let ns = 0;
    for (const task of tasks)
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * One cold start: milliseconds to the initialize reply, to the first call's answer, and to the
 * exit that follows end of stdin.
 */
function coldStart(cli) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [cli], { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    let replied;
    let called;
    let cpu;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      if (replied === undefined && stdout.includes('\n')) {
        replied = performance.now() - start;
        child.stdin.write(FIRST_CALL);
      }
      if (called === undefined && stdout.split('\n').length > 2) {
        called = performance.now() - start;
        cpu = cpuMs(child.pid);
        if (!stdout.includes('"text":"2"')) reject(new Error(`${cli}: unexpected answer ${stdout}`));
        child.stdin.end();
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0 && called !== undefined)
        resolve({ replied, called, cpu, exited: performance.now() - start });
      else reject(new Error(`${cli} exited ${code} ${called === undefined ? 'without a reply' : ''}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

await coldStart(cliA); // first runs fill the file cache; not counted
await coldStart(cliB);
const runsA = [];
const runsB = [];
for (let pair = 0; pair < Number(pairsText); pair++) {
  if (pair % 2 === 0) {
    runsA.push(await coldStart(cliA));
    runsB.push(await coldStart(cliB));
  } else {
    runsB.push(await coldStart(cliB));
    runsA.push(await coldStart(cliA));
  }
}
for (const key of ['replied', 'called', 'cpu', 'exited']) {
  const a = median(runsA.map((run) => run[key]));
  const b = median(runsB.map((run) => run[key]));
  const ratio = median(runsA.map((run, i) => runsB[i][key] / run[key]));
  console.log(
    `${key.padEnd(7)} A ${a.toFixed(1)} ms, B ${b.toFixed(1)} ms (medians of ${runsA.length}); B/A ${ratio.toFixed(3)} (median of the paired ratios)`,
  );
}
