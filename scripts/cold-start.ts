/**
 * Cold start of two built CLIs over stdio, paired: each run spawns `node CLI`, sends `initialize`,
 * times the reply, then sends `notifications/initialized` and one `xml_query` on a tiny document
 * and times its answer (the first call waits for the engine worker), closes stdin and times the
 * exit. On Linux it also reads the CPU time the server's threads have used by the first answer
 * (`/proc/PID/task/<thread>/schedstat`), which a busy machine inflates far less than wall time. A and B alternate (A B, B A, …) so a busy
 * machine slows both alike; the report is the median of the per-pair ratios B/A.
 *
 *   npx tsx scripts/cold-start.ts A/dist/cli.js B/dist/cli.js [pairs=30]
 *
 * To compare a change with the code before it, keep the earlier build in a folder inside the
 * checkout with a copy of package.json beside its dist/ (so it finds node_modules), e.g.
 * `git stash && npm run build && mkdir -p .scratch/base && cp -r dist package.json .scratch/base/
 * && git stash pop && npm run build`, then compare `.scratch/base/dist/cli.js` with `dist/cli.js`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { middleValue } from './lib/figures.js';
import { FIRST_CALL, initializeLine } from './lib/stdio-first-call.js';

const [cliA, cliB, pairsText = '30'] = process.argv.slice(2);
if (!cliA || !cliB || !/^\d+$/.test(pairsText)) {
  process.stderr.write('usage: npx tsx scripts/cold-start.ts A/dist/cli.js B/dist/cli.js [pairs=30]\n');
  process.exit(2);
}

const INITIALIZE = initializeLine('cold-start');

/** Milliseconds on a CPU so far, summed over the process's threads; NaN where /proc is missing. */
function cpuMs(pid: number): number {
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
interface Run {
  replied: number;
  called: number;
  cpu: number;
  exited: number;
}

function coldStart(cli: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [cli], { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    let replied: number | undefined;
    let called: number | undefined;
    let cpu = Number.NaN;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (replied === undefined && stdout.includes('\n')) {
        replied = performance.now() - start;
        child.stdin.write(FIRST_CALL);
      }
      if (called === undefined && stdout.split('\n').length > 2) {
        called = performance.now() - start;
        cpu = cpuMs(child.pid ?? 0);
        if (!stdout.includes('"text":"2"')) reject(new Error(`${cli}: unexpected answer ${stdout}`));
        child.stdin.end();
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0 && replied !== undefined && called !== undefined)
        resolve({ replied, called, cpu, exited: performance.now() - start });
      else reject(new Error(`${cli} exited ${code} ${called === undefined ? 'without a reply' : ''}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

await coldStart(cliA); // first runs fill the file cache; not counted
await coldStart(cliB);
const runsA: Run[] = [];
const runsB: Run[] = [];
for (let pair = 0; pair < Number(pairsText); pair++) {
  if (pair % 2 === 0) {
    runsA.push(await coldStart(cliA));
    runsB.push(await coldStart(cliB));
  } else {
    runsB.push(await coldStart(cliB));
    runsA.push(await coldStart(cliA));
  }
}
for (const key of ['replied', 'called', 'cpu', 'exited'] as const) {
  const a = middleValue(runsA.map((run) => run[key]));
  const b = middleValue(runsB.map((run) => run[key]));
  const ratio = middleValue(runsA.map((run, i) => (runsB[i]?.[key] ?? Number.NaN) / run[key]));
  console.log(
    `${key.padEnd(7)} A ${a.toFixed(1)} ms, B ${b.toFixed(1)} ms (medians of ${runsA.length}); B/A ${ratio.toFixed(3)} (median of the paired ratios)`,
  );
}
