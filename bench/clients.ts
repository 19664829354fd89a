/**
 * Wire-level clients for the benchmarks. No SDK client: it adds its own validation and framing,
 * and the benchmark measures what the server costs on the wire. A call's time runs from just
 * before its first byte is written to the moment its last byte (the reply's newline, or the end
 * of the HTTP body) arrives; serializing the request and parsing the reply happen outside it.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

export interface Timed {
  ms: number;
  /** The parsed JSON-RPC reply. */
  reply: Record<string, unknown>;
}

/** A request's `params`, serialized once and reused for every call with a fresh id. */
export function preparedParams(method: string, params: unknown): Buffer {
  return Buffer.from(`"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`);
}

/** A child process spoken to in JSON-RPC lines; replies are matched to requests by id. */
export class StdioClient {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<number, { resolve: (timed: Timed) => void; start: number }>();
  #chunks: Buffer[] = [];
  #nextId = 1;
  #stderr = '';

  constructor(command: string, args: string[]) {
    this.#child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stdout.on('data', this.#onData);
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
    this.#child.once('exit', (code) => {
      for (const waiter of this.#waiting.values()) {
        waiter.resolve({
          ms: Number.NaN,
          reply: { error: { message: `exited (${code}): ${this.#stderr}` } },
        });
      }
      this.#waiting.clear();
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** The child's process id (for its memory and CPU time under /proc). */
  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /** Sends one request (params already serialized) and resolves with its reply and wire time. */
  call(prepared: Buffer): Promise<Timed> {
    const id = this.#nextId++;
    const head = Buffer.from(`{"jsonrpc":"2.0","id":${id},`);
    return new Promise((resolve) => {
      const start = performance.now();
      this.#waiting.set(id, { resolve, start });
      const stdin = this.#child.stdin;
      stdin.cork();
      stdin.write(head);
      stdin.write(prepared);
      stdin.write('\n');
      stdin.uncork();
    });
  }

  notify(method: string, params: unknown = {}): void {
    this.writeLine(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  writeLine(line: string): void {
    this.#child.stdin.write(`${line}\n`);
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.#child.stdin.end();
    const exited = once(this.#child, 'exit');
    const timer = setTimeout(() => this.#child.kill('SIGTERM'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  #onData = (chunk: Buffer): void => {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      const arrived = performance.now();
      this.#chunks.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.#chunks).toString('utf8');
      this.#chunks = [];
      start = newline + 1;
      this.#deliver(line, arrived);
    }
    if (start < chunk.length) this.#chunks.push(chunk.subarray(start));
  };

  #deliver(line: string, arrived: number): void {
    if (!line.startsWith('{')) return;
    const reply = JSON.parse(line) as Record<string, unknown>;
    const id = reply.id;
    const waiter = typeof id === 'number' ? this.#waiting.get(id) : undefined;
    if (!waiter || typeof id !== 'number') return; // a notification, or a reply nobody waits for
    this.#waiting.delete(id);
    waiter.resolve({ ms: arrived - waiter.start, reply });
  }
}

/**
 * Milliseconds the process has spent on a CPU so far, all its threads together, those that have
 * exited included (Linux: `utime` + `stime` in `/proc/PID/stat`, in clock ticks of 10 ms); NaN
 * elsewhere. A busy machine stretches wall time far more than this. (The per-thread
 * `schedstat` files are finer but lose a thread's time when it exits, as a recycled engine worker
 * does.)
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime is the 14th field.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/** `getconf CLK_TCK` is 100 on Linux on every architecture Node supports. */
const CLOCK_TICK_MS = 10;

/** The process's resident memory in MiB (Linux: `VmRSS` in `/proc/PID/status`); NaN elsewhere. */
export function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Opens a 2025-era session: initialize, then notifications/initialized. */
export async function initializeStdio(client: StdioClient, protocolVersion: string): Promise<Timed> {
  const reply = await client.call(
    preparedParams('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'oxml-bench', version: '1' },
    }),
  );
  client.notify('notifications/initialized');
  return reply;
}

/** The built binary's Streamable HTTP endpoint, spoken to in a 2025 session over one keep-alive connection. */
export class HttpSessionClient {
  readonly #url: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly #protocolVersion: string;
  #sessionId = '';
  #nextId = 1;

  constructor(url: string, protocolVersion: string) {
    this.#url = new URL(url);
    this.#protocolVersion = protocolVersion;
  }

  async initialize(): Promise<void> {
    const init = await this.call(
      preparedParams('initialize', {
        protocolVersion: this.#protocolVersion,
        capabilities: {},
        clientInfo: { name: 'oxml-bench', version: '1' },
      }),
    );
    if (!('result' in init.reply)) throw new Error(`initialize failed: ${JSON.stringify(init.reply)}`);
    await this.#post(Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })));
  }

  async call(prepared: Buffer): Promise<Timed> {
    const body = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${this.#nextId++},`), prepared]);
    const { ms, status, contentType, text } = await this.#post(body);
    if (status !== 200) return { ms, reply: { error: { message: `HTTP ${status}: ${text.slice(0, 300)}` } } };
    return { ms, reply: contentType.includes('text/event-stream') ? lastEvent(text) : JSON.parse(text) };
  }

  async close(): Promise<void> {
    if (this.#sessionId !== '') {
      await new Promise<void>((resolve) => {
        const req = request(this.#url, { method: 'DELETE', agent: this.#agent, headers: this.#headers() });
        req.on('response', (res) => res.resume().on('end', resolve));
        req.on('error', () => resolve());
        req.end();
      });
    }
    this.#agent.destroy();
  }

  #headers(): Record<string, string> {
    return {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': this.#protocolVersion,
      ...(this.#sessionId === '' ? {} : { 'mcp-session-id': this.#sessionId }),
    };
  }

  #post(body: Buffer): Promise<{ ms: number; status: number; contentType: string; text: string }> {
    return new Promise((resolve, reject) => {
      const headers = {
        ...this.#headers(),
        'content-type': 'application/json',
        'content-length': String(body.length),
      };
      const start = performance.now();
      const req = request(this.#url, { method: 'POST', agent: this.#agent, headers });
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const ms = performance.now() - start;
          const session = res.headers['mcp-session-id'];
          if (typeof session === 'string') this.#sessionId = session;
          resolve({
            ms,
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      req.end(body);
    });
  }
}

/** The last `data:` payload of an SSE body (the reply; progress notifications come before it). */
function lastEvent(text: string): Record<string, unknown> {
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((line) => line.startsWith('{'));
  const last = data.at(-1);
  if (last === undefined) return { error: { message: `no data in event stream: ${text.slice(0, 300)}` } };
  return JSON.parse(last) as Record<string, unknown>;
}

/** Starts the built binary on Streamable HTTP, port 0 (and `args`), and resolves with the URL it announces. */
export async function startHttpServer(
  cli: string,
  args: readonly string[] = [],
): Promise<{ url: string; pid: number | undefined; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [cli, '--transport', 'streamable-http', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
  });
  return {
    url,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
