#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runStdio } from './transports/serve-stdio.js';
import { VERSION } from './version.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './xml/limits.js';
import { EnginePool } from './xml/pool.js';

const USAGE = `Usage: oxml-mcp [options]

An MCP server that answers questions about XML documents exactly (XPath 1.0, XSD, well-formedness, shape).

Options:
  --transport stdio        Transport to serve (default: stdio; one JSON-RPC message per line)
  --timeout-ms N           Time budget of one tool call in milliseconds (default: ${DEFAULT_CALL_TIMEOUT_MS})
  --version                Print the version and exit
  --help                   Print this help and exit
`;

function log(message: string): void {
  process.stderr.write(`oxml-mcp: ${message}\n`);
}

function usageError(message: string): never {
  process.stderr.write(`oxml-mcp: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        transport: { type: 'string', default: 'stdio' },
        'timeout-ms': { type: 'string' },
        version: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
}

async function main(): Promise<void> {
  const flags = parseCommandLine();
  if (flags.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (flags.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (flags.transport !== 'stdio')
    usageError(`unknown transport "${flags.transport}" (this version serves: stdio)`);
  let timeoutMs = DEFAULT_CALL_TIMEOUT_MS;
  if (flags['timeout-ms'] !== undefined) {
    timeoutMs = Number(flags['timeout-ms']);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 100)
      usageError('--timeout-ms must be an integer of at least 100');
  }

  const engine = new EnginePool({ timeoutMs });
  let stop: (() => Promise<void>) | undefined;
  const shutdown = async () => {
    await stop?.().catch(() => {});
    await engine.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  stop = await runStdio(engine, (error) => log(error.message));
  await engine.close();
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
