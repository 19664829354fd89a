import type { AuthInfo, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';

/*
 * Opaque access tokens, asked of the issuer (RFC 7662 token introspection, docs/adr/0054): this
 * server authenticates as its own client and the issuer says whether the token is active, for
 * whom, for which audience and until when. One round trip to the issuer per request.
 */

export interface IntrospectionOptions {
  endpoint: string;
  /** This server's client at the issuer, allowed to introspect tokens issued for the resource. */
  clientId: string;
  clientSecret: string;
  issuer: string;
  resource: string;
}

/** How long the issuer may take to answer before the request is answered 500. */
const INTROSPECTION_TIMEOUT_MS = 5_000;

interface Introspection {
  active?: unknown;
  sub?: unknown;
  aud?: unknown;
  iss?: unknown;
  exp?: unknown;
  nbf?: unknown;
  scope?: unknown;
  client_id?: unknown;
}

export function createIntrospectionVerifier(options: IntrospectionOptions): OAuthTokenVerifier {
  const authorization = `Basic ${Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64')}`;
  const resource = new URL(options.resource);
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let answer: Introspection;
      try {
        const response = await fetch(options.endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
            authorization,
          },
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
          signal: AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        answer = (await response.json()) as Introspection;
      } catch (error) {
        throw new OAuthError(
          OAuthErrorCode.ServerError,
          `The issuer’s introspection endpoint did not answer (${(error as Error).message}).`,
        );
      }
      const now = Date.now() / 1000;
      if (answer.active !== true) throw invalid('The token is not active (unknown, expired or revoked).');
      if (answer.iss !== undefined && answer.iss !== options.issuer)
        throw invalid('The token was issued by another issuer.');
      const audiences = Array.isArray(answer.aud) ? answer.aud : [answer.aud];
      if (!audiences.includes(options.resource))
        throw invalid('The token was not issued for this resource (its audience).');
      // A client-credentials token has the client as its subject (as RFC 9068 writes it in a JWT).
      const subject = typeof answer.sub === 'string' && answer.sub !== '' ? answer.sub : answer.client_id;
      if (typeof subject !== 'string' || subject === '') throw invalid('The token names no subject.');
      if (typeof answer.exp !== 'number') throw invalid('The token has no `exp` claim.');
      if (typeof answer.nbf === 'number' && answer.nbf > now) throw invalid('The token is not valid yet.');
      const scope = typeof answer.scope === 'string' ? answer.scope : '';
      return {
        token,
        clientId: typeof answer.client_id === 'string' ? answer.client_id : subject,
        scopes: scope.split(' ').filter((name) => name !== ''),
        expiresAt: answer.exp,
        resource,
        extra: { subject },
      };
    },
  };
}

const invalid = (message: string) => new OAuthError(OAuthErrorCode.InvalidToken, message);

/** A JWS compact serialisation: three base64url parts. Anything else is an opaque token. */
export const looksLikeJwt = (token: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
