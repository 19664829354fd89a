import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';

/*
 * Who is calling, as the transports see it: the subject of the token the bearer gate verified
 * (bearer-gate.ts), set on the request as `req.auth`, where the SDK's Node adapters read it too.
 * Undefined with authentication off, so every comparison of owners is then equal.
 */

export type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

/** The subject a verified token's `AuthInfo` carries: who owns the handles it makes. */
export function subjectOf(auth: AuthInfo | undefined): string | undefined {
  const subject = auth?.extra?.subject;
  return typeof subject === 'string' ? subject : undefined;
}

export function callerOf(req: IncomingMessage): string | undefined {
  return subjectOf((req as AuthenticatedRequest).auth);
}
