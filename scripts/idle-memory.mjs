#!/usr/bin/env node
/**
 * Idle memory of two built CLIs over stdio, paired: each run spawns `node CLI`, sends
 * `initialize`, then `notifications/initialized` and one `xml_query` on a tiny document once it is
 * answered (as bench/run.ts's start-up rows do), waits AFTER_MS (default 1,000) after that answer and
 * reads the process's resident memory (`VmRSS`, all its threads) and where it is
 * (`/proc/PID/smaps`, split as scripts/soak.mjs's --smaps does). Linux only. A and B alternate
 * (A B, B A, …); the report is the medians and the median of the per-pair ratios B/A.
 *
 *   node scripts/idle-memory.mjs A/dist/cli.js B/dist/cli.js [pairs=6] [after-ms=1000]
 *
 * V8 gives back part of the main thread's young generation by itself some 8–10 s after start
 * (its memory reducer), so an AFTER_MS of 12,000 reads the level after that.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { memoryMap } from './soak.mjs';
import { FIRST_CALL, initializeLine } from './stdio-first-call.mjs';

const [cliA, cliB, pairsText = '6', afterText = '1000'] = process.argv.slice(2);
if (!cliA || !cliB || !/^\d+$/.test(pairsText) || !/^\d+$/.test(afterText)) {
  process.stderr.write(
    'usage: node scripts/idle-memory.mjs A/dist/cli.js B/dist/cli.js [pairs=6] [after-ms=1000]\n',
  );
  process.exit(2);
}

const INITIALIZE = initializeLine('idle-memory');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function statusKb(pid, field) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
}

/** One start: VmRSS in MiB and the smaps split, AFTER_MS after the first call's answer. */
function idleMemory(cli) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli], { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    let stage = 0;
    child.stdout.setEncoding('utf8').on('data', async (chunk) => {
      stdout += chunk;
      const lines = stdout.split('\n').length - 1;
      if (stage === 0 && lines >= 1) {
        stage = 1;
        child.stdin.write(FIRST_CALL);
      } else if (stage === 1 && lines >= 2) {
        stage = 2;
        if (!stdout.includes('"text":"2"')) reject(new Error(`${cli}: unexpected answer ${stdout}`));
        await sleep(Number(afterText));
        const run = { rssMiB: statusKb(child.pid, 'VmRSS') / 1024, map: memoryMap(child.pid) };
        child.stdin.end();
        child.once('close', () => resolve(run));
      }
    });
    child.once('error', reject);
    child.stdin.write(INITIALIZE);
  });
}

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

const runsA = [];
const runsB = [];
for (let pair = 0; pair < Number(pairsText); pair++) {
  if (pair % 2 === 0) {
    runsA.push(await idleMemory(cliA));
    runsB.push(await idleMemory(cliB));
  } else {
    runsB.push(await idleMemory(cliB));
    runsA.push(await idleMemory(cliA));
  }
}
const a = median(runsA.map((run) => run.rssMiB));
const b = median(runsB.map((run) => run.rssMiB));
const ratio = median(runsA.map((run, i) => runsB[i].rssMiB / run.rssMiB));
console.log(
  `VmRSS ${afterText} ms after the first answer: A ${a.toFixed(1)} MiB, B ${b.toFixed(1)} MiB (medians of ${runsA.length}); B/A ${ratio.toFixed(3)} (median of the paired ratios)`,
);
console.log(`A, first run (MiB): ${runsA[0].map}`);
console.log(`B, first run (MiB): ${runsB[0].map}`);
