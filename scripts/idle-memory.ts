/**
 * Idle memory of two built CLIs over stdio, paired: each run spawns `node CLI`, sends
 * `initialize`, then `notifications/initialized` and one `xml_query` on a tiny document once it is
 * answered (as bench/run.ts's start-up rows do), waits AFTER_MS (default 1,000) after that answer and
 * reads the process's resident memory (`VmRSS`, all its threads) and where it is
 * (`/proc/PID/smaps`, split as scripts/soak.ts's --smaps does). Linux only. A and B alternate
 * (A B, B A, …); the report is the medians and the median of the per-pair ratios B/A.
 *
 *   npx tsx scripts/idle-memory.ts A/dist/cli.js B/dist/cli.js [pairs=6] [after-ms=1000]
 *
 * V8 gives back part of the main thread's young generation by itself some 8–10 s after start
 * (its memory reducer), so an AFTER_MS of 12,000 reads the level after that.
 */
import { spawn } from 'node:child_process';
import { middleValue } from './lib/figures.js';
import { memoryMap, processMemory } from './lib/process-memory.js';
import { FIRST_CALL, initializeLine } from './lib/stdio-first-call.js';
import { sleep } from './lib/time.js';

const [cliA, cliB, pairsText = '6', afterText = '1000'] = process.argv.slice(2);
if (!cliA || !cliB || !/^\d+$/.test(pairsText) || !/^\d+$/.test(afterText)) {
  process.stderr.write(
    'usage: npx tsx scripts/idle-memory.ts A/dist/cli.js B/dist/cli.js [pairs=6] [after-ms=1000]\n',
  );
  process.exit(2);
}

const INITIALIZE = initializeLine('idle-memory');

/** One start: VmRSS in MiB and the smaps split, AFTER_MS after the first call's answer. */
interface Run {
  rssMiB: number;
  map: string;
}

function idleMemory(cli: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli], { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    let stage = 0;
    child.stdout.setEncoding('utf8').on('data', async (chunk: string) => {
      stdout += chunk;
      const lines = stdout.split('\n').length - 1;
      if (stage === 0 && lines >= 1) {
        stage = 1;
        child.stdin.write(FIRST_CALL);
      } else if (stage === 1 && lines >= 2) {
        stage = 2;
        if (!stdout.includes('"text":"2"')) reject(new Error(`${cli}: unexpected answer ${stdout}`));
        await sleep(Number(afterText));
        const pid = child.pid ?? 0;
        const run = { rssMiB: processMemory(pid).rssKb / 1024, map: memoryMap(pid) };
        child.stdin.end();
        child.once('close', () => resolve(run));
      }
    });
    child.once('error', reject);
    child.stdin.write(INITIALIZE);
  });
}

const runsA: Run[] = [];
const runsB: Run[] = [];
for (let pair = 0; pair < Number(pairsText); pair++) {
  if (pair % 2 === 0) {
    runsA.push(await idleMemory(cliA));
    runsB.push(await idleMemory(cliB));
  } else {
    runsB.push(await idleMemory(cliB));
    runsA.push(await idleMemory(cliA));
  }
}
const a = middleValue(runsA.map((run) => run.rssMiB));
const b = middleValue(runsB.map((run) => run.rssMiB));
const ratio = middleValue(runsA.map((run, i) => (runsB[i]?.rssMiB ?? Number.NaN) / run.rssMiB));
console.log(
  `VmRSS ${afterText} ms after the first answer: A ${a.toFixed(1)} MiB, B ${b.toFixed(1)} MiB (medians of ${runsA.length}); B/A ${ratio.toFixed(3)} (median of the paired ratios)`,
);
console.log(`A, first run (MiB): ${runsA[0]?.map}`);
console.log(`B, first run (MiB): ${runsB[0]?.map}`);
