import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AuthInfo, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';

/*
 * Static bearer tokens for a deployment with no issuer (`--auth-tokens FILE`, docs/adr/0054): each
 * line of the file names a caller and the SHA-256 of its token, so the file holds no token anyone
 * could present. A presented token's digest is compared with every line's in constant time.
 */

interface StaticToken {
  name: string;
  digest: Buffer;
}

/** A caller's name: what its handles and sessions are filed under, and what logs may show. */
const NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const DIGEST = /^[0-9a-f]{64}$/;

/** How long a verified static token counts as valid: the SDK wants an expiry; the file has none. */
const STATIC_VALIDITY_S = 3600;

/**
 * Reads `NAME SHA256-HEX` lines (blank lines and `#` comments skipped). Throws one line saying
 * which line of the file is wrong and how to write it.
 */
export function readStaticTokens(path: string): StaticToken[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `--auth-tokens ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const tokens: StaticToken[] = [];
  const names = new Set<string>();
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [name, digest, ...rest] = line.split(/\s+/);
    if (
      name === undefined ||
      digest === undefined ||
      rest.length > 0 ||
      !NAME.test(name) ||
      !DIGEST.test(digest)
    ) {
      throw new Error(
        `--auth-tokens ${path}, line ${index + 1}: write NAME and the token's SHA-256 in hex, e.g. \`ci-bot $(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)\` (NAME: 1 to 64 letters, digits, . _ @ -)`,
      );
    }
    if (names.has(name))
      throw new Error(`--auth-tokens ${path}, line ${index + 1}: the name "${name}" is given twice`);
    names.add(name);
    tokens.push({ name, digest: Buffer.from(digest, 'hex') });
  }
  if (tokens.length === 0) throw new Error(`--auth-tokens ${path}: no tokens in it, so no one could call`);
  return tokens;
}

export function createStaticVerifier(tokens: readonly StaticToken[]): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const presented = createHash('sha256').update(token).digest();
      // Every line is compared, found or not: the time says nothing of which line matched.
      let found: StaticToken | undefined;
      for (const entry of tokens) {
        if (timingSafeEqual(entry.digest, presented) && found === undefined) found = entry;
      }
      if (!found)
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'The token is not one this server was given.');
      return {
        token,
        clientId: found.name,
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + STATIC_VALIDITY_S,
        extra: { subject: `static:${found.name}` },
      };
    },
  };
}
