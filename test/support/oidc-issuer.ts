import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';

/*
 * A real OpenID provider for the authentication tests (docs/adr/0054): oidc-provider, a certified
 * implementation, on a loopback port, issuing JWT access tokens (RFC 9068) for a resource with
 * the client-credentials grant. Its signing keys are made here, so a test can also sign a token
 * the provider never would (expired, another issuer, `alg: none`) with a key it publishes, and
 * rotate them: the listening server stays, the provider behind it is replaced.
 */

export const SCOPE = 'xml';

/** Two clients, so two subjects: with client credentials the token's `sub` is the client id. */
export const CLIENTS = {
  alice: 'alice-secret',
  bob: 'bob-secret',
  'oxml-server': 'oxml-server-secret',
} as const;
/** The client the server under test introspects opaque tokens as. */
export const RESOURCE_SERVER = 'oxml-server';
export type ClientId = keyof typeof CLIENTS;

export interface SigningKey {
  kid: string;
  privateJwk: JWK;
  privateKey: CryptoKey;
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateJwk, privateKey };
}

export interface Issuer {
  /** The issuer identifier, `http://127.0.0.1:PORT`. */
  url: string;
  /** A token from the provider's token endpoint, for `resource`, with `scope` if given. */
  token(client: ClientId, resource: string, scope?: string): Promise<string>;
  /** Signs claims with a key (the published one by default): a token the provider would not issue. */
  sign(claims: Record<string, unknown>, key?: SigningKey): Promise<string>;
  /** Publishes `keys` (the first signs from now on), as an issuer rotating its keys does. */
  rotate(keys: SigningKey[]): Promise<void>;
  /** Issues opaque tokens (checked by introspection) for this resource from now on. */
  opaqueFor(resource: string): void;
  /** Issues JWT access tokens for this resource again (the default). */
  jwtFor(resource: string): void;
  /** Answers every request 503 until the next `rotate`, as an issuer that is down. */
  fail(): void;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<Issuer> {
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    if (!provider) {
      res.writeHead(503).end();
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let signing = await newSigningKey('key-1');
  const opaque = new Set<string>();

  const providerWith = (keys: SigningKey[]) =>
    new Provider(url, {
      clients: Object.entries(CLIENTS).map(([client_id, client_secret]) => ({
        client_id,
        client_secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: SCOPE,
        // The provider signs with ES256 keys only; its default for clients is RS256.
        id_token_signed_response_alg: 'ES256',
      })),
      jwks: { keys: keys.map((key) => key.privateJwk) },
      scopes: ['openid', SCOPE],
      features: {
        devInteractions: { enabled: false },
        introspection: { enabled: true },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // Every resource a client names: this test's servers run on ports chosen at start.
          getResourceServerInfo: (_ctx: unknown, audience: string) => ({
            audience,
            scope: SCOPE,
            accessTokenFormat: opaque.has(audience) ? 'opaque' : 'jwt',
            accessTokenTTL: 300,
            jwt: { sign: { alg: 'ES256' } },
          }),
        },
      },
    });
  provider = providerWith([signing]);

  return {
    url,
    async token(client, resource, scope) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource });
      if (scope !== undefined) body.set('scope', scope);
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client}:${CLIENTS[client]}`).toString('base64')}`,
        },
        body,
      });
      const json = (await response.json()) as { access_token?: string };
      if (!response.ok || !json.access_token)
        throw new Error(`the issuer refused a token: ${JSON.stringify(json)}`);
      return json.access_token;
    },
    async sign(claims, key = signing) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    opaqueFor(resource) {
      opaque.add(resource);
    },
    jwtFor(resource) {
      opaque.delete(resource);
    },
    fail() {
      provider = undefined;
    },
    async rotate(keys) {
      signing = keys[0] as SigningKey;
      provider = providerWith(keys);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
