/**
 * Hostile Schematron schemas (issue 32, docs/security-model.md): a rule past the time budget, a
 * schema of 100,000 rules, a `let` that builds a huge sequence, recursion. Each costs its caller
 * an isError and another session is answered exactly afterwards.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EnginePool, type PoolOptions } from '../../src/engine/runtime/pool.js';
import { clientOf, textOf as text } from '../support/in-memory-server.js';
import { ORDER, ORDER_SCHEMATRON, SCHEMATRON_NAMESPACE } from '../support/order-schematron.js';

const pools: EnginePool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

const connect = (engine: EnginePool) => clientOf(engine, 'hostile-schematron');

async function attack(options: PoolOptions, xsd: string, xml = '<r><a/><a/></r>') {
  const engine = new EnginePool(options);
  pools.push(engine);
  const client = await connect(engine);
  const answer = await client.callTool({ name: 'xml_validate', arguments: { xml, xsd } });
  return { answer, engine };
}

/** Another session, afterwards, gets the exact Schematron answer and an exact query. */
async function expectServedExactly(engine: EnginePool): Promise<void> {
  const client = await connect(engine);
  const answer = await client.callTool({
    name: 'xml_validate',
    arguments: { xml: ORDER, xsd: ORDER_SCHEMATRON },
  });
  expect(text(answer)).toMatch(
    /^Invalid: 3 findings of the Schematron schema, 2 distinct; by flag or role: 2 fatal, 1 warning\./,
  );
  const count = await client.callTool({
    name: 'xml_query',
    arguments: { xml: '<a><b/><b/></a>', xpath: 'count(//b)' },
  });
  expect(text(count)).toBe('2');
  await client.close();
}

const schema = (body: string, binding = 'xslt2') =>
  `<schema xmlns="${SCHEMATRON_NAMESPACE}" queryBinding="${binding}">${body}</schema>`;
const rule = (test: string, lets = '') =>
  `<pattern><rule context="a">${lets}<assert id="X" test="${test}">m</assert></rule></pattern>`;

describe('a hostile Schematron schema', () => {
  it('a rule whose test runs past the time budget ends the call, and the worker is replaced', async () => {
    const { answer, engine } = await attack(
      { size: 1, timeoutMs: 1_500 },
      schema(rule('count((1 to 100000000)[. mod 7 = 3]) = 0')),
    );
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/time budget|took longer/);
    await expectServedExactly(engine);
  });

  it('an XPath 1.0 rule whose test runs away stops at the XPath step budget', async () => {
    const deep = `<r>${'<a><b/><b/><b/></a>'.repeat(300)}</r>`;
    const { answer, engine } = await attack(
      { size: 1, timeoutMs: 60_000 },
      schema(rule('count(//*[count(//*[count(//*) &gt; 0]) &gt; 0]) &gt; 0'), 'xslt'),
      deep,
    );
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/could not be evaluated as XPath 1\.0.*[Oo]peration limit/);
    await expectServedExactly(engine);
  });

  it('a schema of 100,000 rules is refused before any rule runs', async () => {
    const rules = '<rule context="a"><assert test="true()">m</assert></rule>'.repeat(100_000);
    const { answer, engine } = await attack({ size: 1 }, schema(`<pattern>${rules}</pattern>`));
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/^The Schematron schema in `xsd` has more than 50,000 elements/);
    await expectServedExactly(engine);
  });

  it('a let that builds a huge sequence ends in an isError', async () => {
    const { answer, engine } = await attack(
      { size: 1, timeoutMs: 3_000 },
      schema(
        rule(
          "string-length(string-join($big, ',')) &gt; 0",
          '<let name="big" value="(1 to 50000000) ! string(.)"/>',
        ),
      ),
    );
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/time budget|took longer|memory budget/);
    await expectServedExactly(engine);
  });

  it('a recursive function in a test overruns the stack: an isError, and the worker is never reused', async () => {
    const { answer, engine } = await attack(
      { size: 1, timeoutMs: 60_000 },
      schema(rule('let $f := function($f, $n) { $f($f, $n + 1) + 1 } return $f($f, 0) &gt; 0')),
    );
    const [attacked] = engine.threadIds;
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/stack|failed on this input|time budget|took longer/);
    await expectServedExactly(engine);
    expect(engine.threadIds).not.toContain(attacked);
  });

  it('abstract rules that extend each other are refused', async () => {
    const cycle = `<pattern><rule abstract="true" id="p"><extends rule="q"/></rule><rule abstract="true" id="q"><extends rule="p"/></rule>
      <rule context="a"><extends rule="p"/></rule></pattern>`;
    const { answer, engine } = await attack({ size: 1 }, schema(cycle));
    expect(answer.isError).toBe(true);
    expect(text(answer)).toBe('The abstract rule "p" extends itself (through p → q → p): break the cycle.');
    await expectServedExactly(engine);
  });
});
