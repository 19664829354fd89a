/**
 * The two request lines a start-up measurement sends a fresh stdio server: `initialize`, then
 * the `initialized` notification and a 1 KB-class `count` whose answer ends the measurement
 * (scripts/cold-start.mjs, scripts/idle-memory.mjs).
 */
export function initializeLine(clientName) {
  return `${JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    },
  })}\n`;
}

export const FIRST_CALL = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify(
  {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'xml_query', arguments: { xml: '<a><b/><b/></a>', xpath: 'count(//b)' } },
  },
)}\n`;
