import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialize, runRaw } from './binary.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// What an older Node.js would report, set before the command's first line runs.
const AS_NODE_18 = [
  '--import',
  `data:text/javascript,${encodeURIComponent("Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '18.20.8' } });")}`,
];

describe('on a Node.js older than it supports', () => {
  it('the command says so in one sentence on stderr and exits 1, before anything else', async () => {
    const run = await runRaw([initialize()], ['--version'], AS_NODE_18);
    expect(run).toMatchObject({
      stdout: '',
      stderr: 'oxml-mcp needs Node.js 20.19 or later, and this is Node.js 18.20.8.\n',
      code: 1,
    });
  });
});

describe('--version and --help', () => {
  it.each(['--version', '-v'])('%s prints the bare version to stdout and exits 0', async (flag) => {
    const run = await runRaw([], [flag]);
    expect(run).toMatchObject({ stdout: `${version}\n`, stderr: '', code: 0 });
  });

  it.each(['--help', '-h'])('%s prints the usage to stdout and exits 0', async (flag) => {
    const run = await runRaw([], [flag]);
    expect(run.stdout).toMatch(/^Usage: oxml-mcp/);
    expect(run).toMatchObject({ stderr: '', code: 0 });
  });

  it('print and exit before any protocol message, whatever stdin holds', async () => {
    for (const flag of ['--version', '--help']) {
      const run = await runRaw([initialize()], [flag]);
      expect(run.replies).toEqual([]);
      expect(run.code).toBe(0);
    }
  });

  it('--help gives every integer flag its range and its default', async () => {
    const { stdout } = await runRaw([], ['--help']);
    for (const [flag, range, fallback] of [
      ['--port', '0-65535', 'default: 8000 for streamable-http, 8001 for sse'],
      ['--timeout-ms', '100-3600000', 'default: 10000'],
      ['--max-sessions', '1-100000', 'default: 4096'],
      ['--session-idle-ms', '1-604800000', 'default: 1800000'],
      ['--session-evict-after-ms', '0-604800000', 'default: 5000'],
    ] as const) {
      const entry = stdout.slice(stdout.indexOf(`  ${flag} `));
      expect(entry.slice(0, entry.indexOf(')') + 1)).toContain(`${range} (${fallback}`);
    }
  });
});

describe('flags that are refused', () => {
  it('prints usage to stderr and exits 2 on an unknown flag', async () => {
    const run = await runRaw([], ['--bogus']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: oxml-mcp');
    expect(run.stdout).toBe('');
  });

  it.each([
    [['--host', '127.0.0.1']],
    [['--port', '8000']],
    [['--transport', 'stdio', '--port', '8000']],
    [['--max-sessions', '4']],
    [['--session-idle-ms', '1000']],
    [['--session-evict-after-ms', '0']],
    [['--store', 'redis://127.0.0.1:6379']],
    [['--store-cluster']],
  ])('refuses the HTTP flag in %j with stdio, exit 2', async (args) => {
    const run = await runRaw([initialize()], args);
    const flag = args.find((arg) => arg !== '--transport' && arg.startsWith('--'));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `oxml-mcp: ${flag} has no effect with stdio: add --transport streamable-http`,
    );
    expect(run.stdout).toBe('');
  });

  it.each([
    [
      ['--transport', 'sse', '--store', 'redis://127.0.0.1:6379'],
      '--store applies to --transport streamable-http only',
    ],
    [
      ['--transport', 'streamable-http', '--store', 'http://oxml:secret@127.0.0.1:6379'],
      '--store takes a redis:// or rediss:// URL',
    ],
    [
      ['--transport', 'streamable-http', '--store', '127.0.0.1:6379'],
      '--store must be a URL such as redis://',
    ],
    [['--transport', 'streamable-http', '--store', 'not a url'], '--store must be a URL such as redis://'],
    [
      ['--transport', 'streamable-http', '--store-cluster'],
      '--store-cluster names how to use the --store URL: give --store too',
    ],
    [
      [
        '--transport',
        'streamable-http',
        '--store',
        'redis://oxml:secret@127.0.0.1:7000/2',
        '--store-cluster',
      ],
      '--store-cluster: a Redis Cluster has database 0 only',
    ],
  ])('refuses --store in %j, exit 2, with a sentence that shows no password', async (args, sentence) => {
    const run = await runRaw([], args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`oxml-mcp: ${sentence}`);
    expect(run.stderr).not.toContain('secret');
    expect(run.stdout).toBe('');
  });
});

describe('a port in use', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it.each(['streamable-http', 'sse'])('is one line on stderr and exit 1 for %s', async (transport) => {
    const run = await runRaw([], ['--transport', transport, '--port', String(port)]);
    expect(run).toMatchObject({
      stderr: `oxml-mcp: port ${port} is in use; pick another with --port\n`,
      stdout: '',
      code: 1,
    });
  });
});
