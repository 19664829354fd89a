import { spawnSync } from 'node:child_process';

/**
 * Runs `main`, reporting a failure as `[tag] failed: …` with exit 1. The inspector needs a global
 * WebSocket, which Node 20 has only behind a flag: without it, this script runs again with the
 * flag, keeping node's own arguments (tsx's loader among them).
 */
export function runWithWebSocket(tag: string, main: () => Promise<void>): void {
  if (typeof WebSocket === 'undefined') {
    const again = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        '--experimental-websocket',
        '--disable-warning=ExperimentalWarning',
        ...process.argv.slice(1),
      ],
      { stdio: 'inherit' },
    );
    process.exit(again.status ?? 1);
  }
  main().catch((error) => {
    process.stderr.write(`[${tag}] failed: ${(error as Error)?.stack ?? error}\n`);
    process.exit(1);
  });
}
