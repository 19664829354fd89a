import { initialize, initialized, toolCall } from '../../test/support/stdio-lines.js';

/*
 * The two request lines a start-up measurement sends a fresh stdio server: `initialize`, then
 * the `initialized` notification and a 1 KB-class `count` whose answer ends the measurement
 * (scripts/cold-start.ts, scripts/idle-memory.ts).
 */

export const initializeLine = (clientName: string): string =>
  `${initialize('2025-06-18', { id: 1, client: clientName })}\n`;

export const FIRST_CALL = `${initialized}\n${toolCall(2, 'xml_query', { xml: '<a><b/><b/></a>', xpath: 'count(//b)' })}\n`;
