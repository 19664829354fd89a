/**
 * Issue 24, H2 through the built binary: `//a = //b` on a held 7.8 MB document of two 240-deep
 * chains (libxml2 keeps the string-value of every node it compares: ~1.9 GiB before the heap had a
 * ceiling) answers a memory `isError` with the process under 1.2 GiB, and the next call is served.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processMemory } from '../../scripts/lib/process-memory.js';
import { CLI } from '../support/built-cli.js';
import { initialize, initialized, toolCall } from '../support/stdio-lines.js';

const chain = (name: string, depth: number, text: string) =>
  `<${name}>`.repeat(depth) + text + `</${name}>`.repeat(depth);
// The texts agree but for their last character, so libxml2 cannot tell the chains apart by hash.
const CHAINS = `<r>${chain('a', 240, `${'x'.repeat(3_900_000)}1`)}${chain('b', 240, `${'x'.repeat(3_900_000)}2`)}</r>`;

describe('an XPath whose comparison would take gigabytes', () => {
  it('answers a memory isError naming the budget, keeps the process under 1.2 GiB, and serves the next call', async () => {
    const child = spawn(process.execPath, [CLI], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const replies: Array<{ id: number; result: { isError?: boolean; content: Array<{ text: string }> } }> =
      [];
    const arrived = (count: number) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (replies.length >= count) resolve();
          else setTimeout(look, 20);
        };
        look();
      });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      for (let end = out.indexOf('\n'); end >= 0; end = out.indexOf('\n')) {
        replies.push(JSON.parse(out.slice(0, end)));
        out = out.slice(end + 1);
      }
    });
    child.stdin.write(`${initialize()}\n${initialized}\n`);
    child.stdin.write(`${toolCall(1, 'xml_query', { xml: CHAINS, xpath: 'count(//a)' })}\n`);
    await arrived(2);
    const handle = /document: (d_\S+)/.exec(replies[1]?.result.content[1]?.text ?? '')?.[1];
    expect(handle).toBeDefined();
    child.stdin.write(`${toolCall(2, 'xml_query', { document: handle, xpath: '//a = //b' })}\n`);
    await arrived(3);
    child.stdin.write(`${toolCall(3, 'xml_query', { document: handle, xpath: 'count(//b)' })}\n`);
    await arrived(4);
    const [, counted, compared, next] = replies;
    expect(counted?.result.content[0]?.text).toBe('240');
    expect(compared?.result.isError).toBe(true);
    expect(compared?.result.content[0]?.text).toMatch(
      /^The call ran out of its memory budget \(768 MiB of engine heap\)/,
    );
    expect(next?.result.content[0]?.text).toBe('240');
    expect(processMemory(child.pid as number).hwmKb).toBeLessThan(1.2 * 1024 * 1024);
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  });
});
