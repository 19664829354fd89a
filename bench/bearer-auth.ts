/**
 * What checking a bearer token costs a call (docs/adr/0054): the built binary twice, one with
 * --auth-issuer (a real oidc-provider on loopback issuing the JWT) and one without, sent the same
 * small 2026-07-28 `tools/call` in turn (A B A B …), so both see the same machine state.
 *
 *   npm run build && npx tsx bench/bearer-auth.ts [--quick]
 *
 * Reports the medians and p90 of each side's round trip, their difference and ratio, and each
 * server's CPU per call. No timed assertions: it reports.
 */
import { MODERN_CALL_HEADERS, MODERN_COUNT_CALL } from '../test/support/http-requests.js';
import { SCOPE, startIssuer } from '../test/support/oidc-issuer.js';
import { cpuMs, startHttpServer } from './clients.js';
import { median, ms, p90, ratio, signedMs, table } from './stats.js';

const CLI = new URL('../dist/cli.js', import.meta.url).pathname;
const QUICK = process.argv.includes('--quick');
const WARM = QUICK ? 50 : 300;
const PAIRS = QUICK ? 200 : 3000;
const RESOURCE = 'https://xml.example.test/mcp';

const issuer = await startIssuer();
const token = await issuer.token('alice', RESOURCE, SCOPE);
const open = await startHttpServer(CLI);
const authed = await startHttpServer(CLI, ['--auth-issuer', issuer.url, '--auth-resource', RESOURCE]);

async function call(url: string, authorization?: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...MODERN_CALL_HEADERS, ...(authorization ? { authorization } : {}) },
    body: MODERN_COUNT_CALL,
  });
  const body = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200 || !body.includes('"text":"2"'))
    throw new Error(`unexpected answer ${response.status}: ${body}`);
  return elapsed;
}

const bearer = `Bearer ${token}`;
for (let i = 0; i < WARM; i++) {
  await call(open.url);
  await call(authed.url, bearer);
}
const cpuBefore = [cpuMs(open.pid ?? 0), cpuMs(authed.pid ?? 0)];
const off: number[] = [];
const on: number[] = [];
for (let i = 0; i < PAIRS; i++) {
  off.push(await call(open.url));
  on.push(await call(authed.url, bearer));
  if (i % 500 === 0) process.stderr.write(`${i}/${PAIRS}\n`);
}
const cpuPerCall = [cpuMs(open.pid ?? 0), cpuMs(authed.pid ?? 0)].map(
  (after, side) => ((after - (cpuBefore[side] as number)) / PAIRS) * 1000,
);
await open.stop();
await authed.stop();
await issuer.close();

process.stdout.write(
  `${table(
    ['', 'median ms', 'p90 ms', 'server CPU µs/call'],
    [
      ['auth off', ms(median(off)), ms(p90(off)), cpuPerCall[0]?.toFixed(0) ?? '–'],
      ['JWT checked (ES256)', ms(median(on)), ms(p90(on)), cpuPerCall[1]?.toFixed(0) ?? '–'],
      [
        'difference',
        signedMs(median(on) - median(off)),
        signedMs(p90(on) - p90(off)),
        ((cpuPerCall[1] ?? Number.NaN) - (cpuPerCall[0] ?? Number.NaN)).toFixed(0),
      ],
      ['ratio', ratio(median(on) / median(off)), ratio(p90(on) / p90(off)), ''],
    ],
  )}\n\n${PAIRS} pairs after ${WARM} warm-up pairs, ${new Date().toISOString()}, Node.js ${process.version}.\n`,
);
