/**
 * The oldest Node.js the server supports (docs/adr/0046-supported-node-versions.md); package.json's
 * `engines` says the same, and test/package.test.ts holds them together.
 */
export const OLDEST_NODE = { major: 20, minor: 19 } as const;

/** The one sentence the installed command prints on a Node.js older than OLDEST_NODE, else undefined. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major > OLDEST_NODE.major || (major === OLDEST_NODE.major && minor >= OLDEST_NODE.minor))
    return undefined;
  return `oxml-mcp needs Node.js ${OLDEST_NODE.major}.${OLDEST_NODE.minor} or later, and this is Node.js ${version.replace(/^v/, '')}.`;
}
