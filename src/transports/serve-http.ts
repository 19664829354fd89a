import type { EnginePool } from '../engine/runtime/pool.js';
import { type Listening, listen, rebindingGuards } from './http-common.js';
import type { SessionLimits } from './sessions.js';
import { createStreamableHttpEndpoint, MCP_PATH } from './streamable-http.js';

export type HttpTransport = 'streamable-http' | 'sse';

export interface HttpOptions {
  host: string;
  port: number;
  onError: (error: Error) => void;
  limits?: SessionLimits;
}

/**
 * Serves one HTTP transport behind the DNS-rebinding guards; resolves once it listens. The legacy
 * SSE module, and with it `@modelcontextprotocol/server-legacy`, is imported only when SSE is
 * served (docs/adr/0013-load-legacy-sse-on-demand.md).
 */
export async function serveHttp(
  kind: HttpTransport,
  engine: EnginePool,
  options: HttpOptions,
): Promise<Listening> {
  const sse = kind === 'sse' ? await import('./sse.js') : undefined;
  const endpoint = sse
    ? sse.createSseEndpoint(engine, options.onError, options.limits)
    : createStreamableHttpEndpoint(engine, options.onError, options.limits);
  const guard = rebindingGuards(options.host);
  const listening = await listen(
    async (req, res) => {
      if (guard(req, res)) await endpoint.handle(req, res);
    },
    options.host,
    options.port,
    sse ? sse.SSE_PATH : MCP_PATH,
    options.onError,
  );
  return {
    url: listening.url,
    close: async () => {
      await endpoint.close();
      await listening.close();
    },
  };
}
