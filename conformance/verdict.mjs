// verdict.mjs: judge one conformance run from the checks.json files it saved (`-o DIR`) against an
// expected-failures file, with the same rules as the suite's own --expected-failures, and report
// what the suite does not: a baseline entry that names a scenario or check that never ran.
//
//   node verdict.mjs --results DIR --baseline FILE --suite-dir DIR --label TEXT
//
// Rules (those of @modelcontextprotocol/conformance): a check fails when its status is FAILURE or
// WARNING. `scenario` in the baseline excuses the whole scenario and must fail; `scenario:check-id`
// excuses that one check (every occurrence, most severe first), any other failing check of the
// scenario is unexpected, and a listed check that succeeds is stale. Exit 0 when nothing is
// unexpected, stale or missing; 1 otherwise. The last line is machine-readable:
//   RESULT scenarios=N passed=N xfail=N unexpected=N stale=N missing=N
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const args = {};
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const key of ['results', 'baseline', 'suite-dir', 'label']) {
  if (!args[key]) {
    console.error(`verdict.mjs: --${key} is required`);
    process.exit(2);
  }
}

// The YAML parser the suite itself uses, from the pinned install.
const YAML = createRequire(join(args['suite-dir'], 'package.json'))('yaml');
const doc = YAML.parse(readFileSync(args.baseline, 'utf8')) ?? {};
const entries = (doc.server ?? []).map(String);
const wholeScenario = new Set(entries.filter((e) => !e.includes(':')));
const perCheck = new Map();
for (const entry of entries.filter((e) => e.includes(':'))) {
  const [scenario, check] = [entry.slice(0, entry.indexOf(':')), entry.slice(entry.indexOf(':') + 1)];
  if (!perCheck.has(scenario)) perCheck.set(scenario, new Set());
  perCheck.get(scenario).add(check);
}

const severity = (status) => ({ FAILURE: 3, WARNING: 2, SUCCESS: 1 })[status] ?? 0;
const failing = (status) => status === 'FAILURE' || status === 'WARNING';

// results/server-<scenario>-<ISO timestamp>/checks.json
const runs = new Map();
for (const dir of readdirSync(args.results)) {
  const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
  const checks = JSON.parse(readFileSync(join(args.results, dir, 'checks.json'), 'utf8'));
  // One verdict per check id, the most severe occurrence (INFO lines are not verdicts).
  const byId = new Map();
  for (const check of checks) {
    if (check.status === 'INFO') continue;
    const seen = byId.get(check.id);
    if (!seen || severity(check.status) >= severity(seen.status)) byId.set(check.id, check);
  }
  runs.set(scenario, byId);
}

const passed = [];
const xfail = [];
const unexpected = []; // { scenario, check, status, message }
const stale = [];
const missing = [];
const describe = (c) => (c.errorMessage ?? '').replace(/\s+/g, ' ').slice(0, 240);

for (const [scenario, byId] of [...runs].sort(([a], [b]) => a.localeCompare(b))) {
  const bad = [...byId.values()].filter((c) => failing(c.status));
  if (wholeScenario.has(scenario)) {
    if (bad.length > 0) xfail.push(scenario);
    else stale.push(scenario);
    continue;
  }
  const excused = perCheck.get(scenario) ?? new Set();
  const surprises = bad.filter((c) => !excused.has(c.id));
  for (const c of surprises)
    unexpected.push({ scenario, check: c.id, status: c.status, message: describe(c) });
  for (const id of excused) {
    const c = byId.get(id);
    if (!c) missing.push(`${scenario}:${id} (that check did not run)`);
    else if (c.status === 'SUCCESS') stale.push(`${scenario}:${id}`);
  }
  if (surprises.length > 0) continue;
  if (bad.length > 0) xfail.push(scenario);
  else passed.push(scenario);
}
for (const scenario of new Set([...wholeScenario, ...perCheck.keys()])) {
  if (!runs.has(scenario)) missing.push(`${scenario} (no such scenario in this run)`);
}

const total = runs.size;
const verdicts = [...runs.values()].flatMap((byId) => [...byId.values()]);
const checksPassed = verdicts.filter((c) => c.status === 'SUCCESS').length;
const checksFailed = verdicts.filter((c) => failing(c.status)).length;
console.log(
  `${args.label}: ${total} scenarios: ${passed.length} passed, ${xfail.length} failed only as the baseline ` +
    `expects, ${new Set(unexpected.map((u) => u.scenario)).size} failed otherwise; checks: ${checksPassed} ` +
    `passed, ${checksFailed - unexpected.length} failed as expected, ${unexpected.length} failed unexpectedly`,
);
console.log(`  passed: ${passed.join(', ') || '(none)'}`);
for (const u of unexpected) console.log(`  UNEXPECTED ${u.status} ${u.scenario}:${u.check}: ${u.message}`);
for (const s of stale) console.log(`  STALE (passes now; remove it from ${args.baseline}): ${s}`);
for (const m of missing) console.log(`  BASELINE ENTRY NOT EXERCISED: ${m}`);
if (total === 0) console.log('  NO SCENARIO RAN');

const ok = total > 0 && unexpected.length === 0 && stale.length === 0 && missing.length === 0;
console.log(
  `RESULT scenarios=${total} passed=${passed.length} xfail=${xfail.length} ` +
    `unexpected=${new Set(unexpected.map((u) => u.scenario)).size} stale=${stale.length} missing=${missing.length}`,
);
process.exit(ok ? 0 : 1);
