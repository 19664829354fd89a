import type { IncomingMessage, ServerResponse } from 'node:http';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';
import {
  type AuthInfo,
  type AuthMetadataOptions,
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  oauthMetadataResponse,
  type VerifyBearerTokenOptions,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { createIntrospectionVerifier, looksLikeJwt } from './introspection-verifier.js';
import { createJwtVerifier } from './jwt-verifier.js';
import { createStaticVerifier, readStaticTokens } from './static-tokens.js';

/*
 * The HTTP transports as an OAuth 2.1 resource server (docs/adr/0054): every request to the MCP
 * endpoints carries a bearer token the issuer signed for this resource, and the Protected
 * Resource Metadata document (RFC 9728) tells a client without one where to get one. The SDK's
 * own pieces do the protocol (the header, the resource and scope checks, the challenge, the
 * metadata document); jose checks the JWT (jwt-verifier.ts).
 */

/** Tokens from an OAuth issuer (`--auth-issuer`), or from a file of static tokens (`--auth-tokens`). */
export type AuthSettings = IssuerSettings | { tokensFile: string };

export interface IssuerSettings {
  /** The authorization server's issuer identifier; its metadata is read once, at start. */
  issuer: string;
  /** This server's resource URI as clients address it (RFC 8707), e.g. https://xml.example.com/mcp. */
  resource: string;
  /** Scopes every token must carry; none by default. */
  requiredScopes: readonly string[];
  /** See `JwtVerifierOptions.refetchCooldownMs`. */
  refetchCooldownMs?: number;
  /**
   * This server's client at the issuer, to introspect opaque tokens (RFC 7662); without it only
   * JWT access tokens are accepted.
   */
  introspection?: { clientId: string; clientSecret: string };
}

export interface BearerGate {
  /** Answers the metadata documents; false when the request is for something else. */
  serveMetadata(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The request's verified caller, or undefined once it has been answered 401 or 403. */
  authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined>;
}

const WELL_KNOWN = '/.well-known/';

/**
 * Reads the issuer's metadata (RFC 8414, or OpenID Connect discovery) for its key set, and
 * checks the settings before any request comes: a wrong issuer fails the start, not every call.
 */
export async function openBearerGate(
  settings: AuthSettings,
  onError: (error: Error) => void = () => {},
): Promise<BearerGate> {
  if ('tokensFile' in settings) {
    // No issuer, so no metadata to point a client at: the 401 says only that a token is needed.
    return gate({ verifier: createStaticVerifier(readStaticTokens(settings.tokensFile)) }, onError);
  }
  return openIssuerGate(settings, onError);
}

async function openIssuerGate(
  settings: IssuerSettings,
  onError: (error: Error) => void,
): Promise<BearerGate> {
  let oauthMetadata: Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>;
  try {
    oauthMetadata = await discoverAuthorizationServerMetadata(settings.issuer);
  } catch (error) {
    throw new Error(
      `--auth-issuer ${settings.issuer}: its metadata could not be read (${(error as Error).message})`,
    );
  }
  if (!oauthMetadata) {
    throw new Error(
      `--auth-issuer ${settings.issuer}: no authorization server metadata at its /.well-known/oauth-authorization-server or /.well-known/openid-configuration`,
    );
  }
  if (!oauthMetadata.jwks_uri) {
    throw new Error(
      `--auth-issuer ${settings.issuer}: its metadata names no jwks_uri, so its tokens cannot be checked`,
    );
  }
  const resourceServerUrl = new URL(settings.resource);
  const metadataOptions: AuthMetadataOptions = {
    oauthMetadata,
    resourceServerUrl,
    resourceName: 'oxml-mcp',
    ...(settings.requiredScopes.length > 0 ? { scopesSupported: [...settings.requiredScopes] } : {}),
  };
  // Throws now, for an issuer that is not HTTPS outside loopback, rather than on the first request.
  try {
    buildOAuthProtectedResourceMetadata(metadataOptions);
  } catch (error) {
    throw new Error(`--auth-issuer ${settings.issuer}: ${(error as Error).message}`);
  }
  const verify: VerifyBearerTokenOptions = {
    verifier: eitherVerifier(
      createJwtVerifier({
        issuer: oauthMetadata.issuer,
        resource: settings.resource,
        jwksUri: String(oauthMetadata.jwks_uri),
        ...(settings.refetchCooldownMs === undefined
          ? {}
          : { refetchCooldownMs: settings.refetchCooldownMs }),
      }),
      introspector(settings, oauthMetadata),
    ),
    requiredScopes: [...settings.requiredScopes],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resourceServerUrl),
    expectedResource: resourceServerUrl,
  };

  return gate(verify, onError, metadataOptions);
}

/** The gate itself: the SDK's check and challenge, and the metadata document when there is an issuer. */
function gate(
  verify: VerifyBearerTokenOptions,
  onError: (error: Error) => void,
  metadataOptions?: AuthMetadataOptions,
): BearerGate {
  return {
    async serveMetadata(req, res) {
      if (!metadataOptions || !req.url?.startsWith(WELL_KNOWN)) return false;
      const request = new Request(new URL(req.url, 'http://localhost'), {
        method: req.method ?? 'GET',
        headers: headersOf(req),
      });
      const answer = oauthMetadataResponse(request, metadataOptions);
      if (!answer) return false;
      await writeResponse(res, answer);
      return true;
    },
    async authenticate(req, res) {
      try {
        // The verifier refuses a token without `sub`: a verified caller always has a subject.
        return await verifyBearerToken(req.headers.authorization, verify);
      } catch (error) {
        // The operator's to fix, not the caller's: said on stderr, answered 500.
        if (error instanceof OAuthError && error.code === OAuthErrorCode.ServerError)
          onError(new Error(`bearer token not checked: ${error.message}`));
        // The request's body is not read: a refused caller's upload is dropped.
        req.resume();
        await writeResponse(res, bearerAuthChallengeResponse(error, verify));
        return undefined;
      }
    },
  };
}

/** The introspection of opaque tokens, when asked for and the issuer offers it. */
function introspector(
  settings: IssuerSettings,
  metadata: { issuer: string; introspection_endpoint?: string | undefined },
): OAuthTokenVerifier | undefined {
  if (!settings.introspection) return undefined;
  if (!metadata.introspection_endpoint) {
    throw new Error(
      `--auth-issuer ${settings.issuer}: its metadata names no introspection_endpoint, so opaque tokens cannot be checked (leave out --auth-introspection-client)`,
    );
  }
  return createIntrospectionVerifier({
    endpoint: metadata.introspection_endpoint,
    ...settings.introspection,
    issuer: metadata.issuer,
    resource: settings.resource,
  });
}

/** A JWT is checked here with the issuer's keys; anything else is asked of the issuer, if allowed. */
function eitherVerifier(jwt: OAuthTokenVerifier, opaque: OAuthTokenVerifier | undefined): OAuthTokenVerifier {
  if (!opaque) return jwt;
  return { verifyAccessToken: (token) => (looksLikeJwt(token) ? jwt : opaque).verifyAccessToken(token) };
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

/** A web `Response` from the SDK's helpers, written to Node's response. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, headers);
  res.end(body);
}
