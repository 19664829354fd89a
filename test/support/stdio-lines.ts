/*
 * JSON-RPC requests as the lines a stdio client writes (without their newline), for the tests
 * and the scripts that speak to the built binary on the wire.
 */

/** An `initialize` request, 2025-06-18 unless told. */
export const initialize = (version = '2025-06-18', { id = 0, client = 'e2e' } = {}): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: client, version: '1' } },
  });

export const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** A `tools/call` request. */
export const toolCall = (id: number, name: string, args: Record<string, unknown>): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
