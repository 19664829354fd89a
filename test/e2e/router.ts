import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Backend {
  /** The process's --instance name: the prefix of the session ids it issues. */
  name: string;
  port: number;
}

export interface Router {
  url: string;
  /** Which backend ports answered, in order (a request stepped over a process counts once, where it ended). */
  readonly answeredBy: number[];
  close(): Promise<void>;
}

/**
 * A load balancer of the shape of deploy/nginx.conf, small enough for a test: a request whose
 * Mcp-Session-Id starts with `NAME.` goes to that process, the others as backups; any other
 * request round-robin. A process that refuses the connection, or answers 503, is stepped over
 * to the next (nginx's `proxy_next_upstream error http_503 non_idempotent`). `roundRobinOnly`
 * is a plain balancer with no session map and no retries, as in the measurement.
 */
export async function startRouter(backends: Backend[], roundRobinOnly = false): Promise<Router> {
  let next = 0;
  const answeredBy: number[] = [];
  const order = (session: string | undefined): Backend[] => {
    const owner = roundRobinOnly ? undefined : backends.find((b) => session?.startsWith(`${b.name}.`));
    if (owner) return [owner, ...backends.filter((b) => b !== owner)];
    const start = next++ % backends.length;
    const rotated = [...backends.slice(start), ...backends.slice(0, start)];
    return roundRobinOnly ? rotated.slice(0, 1) : rotated;
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const session = req.headers['mcp-session-id'];
    const candidates = order(typeof session === 'string' ? session : undefined);
    const headers = { ...req.headers, host: 'localhost' };
    const attempt = (i: number): void => {
      const backend = candidates[i] as Backend;
      const last = i === candidates.length - 1;
      const upstream = request(
        { host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers },
        (answer) => {
          if (answer.statusCode === 503 && !last) {
            answer.resume();
            attempt(i + 1);
            return;
          }
          answeredBy.push(backend.port);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.once('error', () => {
        if (!last) attempt(i + 1);
        else if (!res.headersSent) {
          res.writeHead(502);
          res.end();
        } else res.destroy();
      });
      res.once('close', () => upstream.destroy());
      upstream.end(body);
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    answeredBy,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
