import type { AuthInfo, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';

/*
 * JWT access tokens (RFC 9068) checked against the issuer's published keys, by `jose`
 * (docs/adr/0054-bearer-tokens-and-handles-of-their-caller.md). The SDK's `verifyBearerToken`
 * calls this and then checks what it reports: the resource, the scopes, the expiry.
 */

/**
 * The signature algorithms a token may use: asymmetric only, so this server never holds a key
 * that could sign one, and never `none` (jose refuses an unsecured token whatever this says).
 */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface JwtVerifierOptions {
  /** The `iss` every token must carry: the authorization server's issuer identifier. */
  issuer: string;
  /** This server's resource URI (RFC 8707): every token's `aud` must name it. */
  resource: string;
  /** Where the issuer publishes its keys (`jwks_uri` in its metadata). */
  jwksUri: string;
  /**
   * After a fetch of the keys, how long before a token signed with an unknown key may cause
   * another: a caller sending made-up key ids cannot make this server hammer the issuer. 30 s
   * (jose's default) unless a test needs to see a rotation at once.
   */
  refetchCooldownMs?: number;
}

export function createJwtVerifier(options: JwtVerifierOptions): OAuthTokenVerifier {
  const keys = createRemoteJWKSet(new URL(options.jwksUri), {
    ...(options.refetchCooldownMs === undefined ? {} : { cooldownDuration: options.refetchCooldownMs }),
  });
  const resource = new URL(options.resource);
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: options.resource,
          algorithms: ALGORITHMS,
          requiredClaims: ['exp', 'sub'],
        }));
      } catch (error) {
        throw refusal(error);
      }
      const scope = typeof payload.scope === 'string' ? payload.scope : '';
      const clientId = payload.client_id ?? payload.azp;
      return {
        token,
        clientId: typeof clientId === 'string' ? clientId : (payload.sub as string),
        scopes: scope.split(' ').filter((name) => name !== ''),
        expiresAt: payload.exp as number,
        // jwtVerify has checked that `aud` names this resource.
        resource,
        extra: { subject: payload.sub },
      };
    },
  };
}

/**
 * What the client is told of a refused token: the check that failed, never the token. A key
 * set that cannot be fetched is this server's trouble, not the token's: `server_error`.
 */
function refusal(error: unknown): OAuthError {
  // A key set that could not be fetched or read: a network error, a timeout, or jose's generic
  // error for a non-200 answer or a body that is not a key set.
  if (
    !(error instanceof errors.JOSEError) ||
    error instanceof errors.JWKSTimeout ||
    error.code === 'ERR_JOSE_GENERIC'
  ) {
    return new OAuthError(OAuthErrorCode.ServerError, 'The issuer’s keys could not be fetched.');
  }
  if (error instanceof errors.JWTExpired) return invalid('The token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed)
    return invalid(claimMessage(error.claim, error.reason));
  if (error instanceof errors.JWKSNoMatchingKey)
    return invalid('The token is signed with a key the issuer does not publish.');
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return invalid('The token’s signature does not verify.');
  if (error instanceof errors.JOSEAlgNotAllowed)
    return invalid('The token’s signature algorithm is not accepted.');
  return invalid('The token is not a valid signed JWT.');
}

function claimMessage(claim: string, reason: string): string {
  if (claim === 'iss') return 'The token was issued by another issuer.';
  if (claim === 'aud') return 'The token was not issued for this resource (its audience).';
  if (claim === 'nbf') return 'The token is not valid yet.';
  if (reason === 'missing') return `The token has no \`${claim}\` claim.`;
  return `The token’s \`${claim}\` claim is not valid.`;
}

const invalid = (message: string) => new OAuthError(OAuthErrorCode.InvalidToken, message);
