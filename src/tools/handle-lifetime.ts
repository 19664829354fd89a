import { HELD_DOCUMENT_IDLE_MS } from '../limits.js';

/**
 * The lifetime rule, in the one sentence the server's instructions carry (docs/adr/0039): the
 * 2026-07-28 specification asks a server whose handles outlive a connection to state their
 * bounded lifetime. Worded as what a client can count on: over stdio a handle lasts longer (its
 * connection), which keeps the sentence true there too.
 */
export const HANDLE_LIFETIME =
  `A handle works on any connection to this server for ${HELD_DOCUMENT_IDLE_MS / 60_000} minutes after its last use, ` +
  'unless memory runs short (least recently used first); when told it is no longer held, send the text again.';
