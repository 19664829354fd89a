import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OLDEST_NODE, unsupportedNode } from '../src/node-version.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  name: string;
  version: string;
  license: string;
  mcpName: string;
  bin: Record<string, string>;
  engines: { node: string };
  scripts: Record<string, string>;
};
const serverJson: unknown = JSON.parse(read('server.json'));

/** A version the registry accepts: one exact version, never a range or a tag such as `latest`. */
const exactVersion = z
  .string()
  .max(255)
  .regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/, 'an exact semantic version');

/**
 * The fields of the MCP registry's server.json (schema 2025-12-11, the `$schema` below) that this
 * file uses, with the schema's constraints. Stricter than the schema in one way: an unknown key is
 * refused, so a misspelt optional field fails here instead of being ignored by the registry.
 */
const ServerJson = z.strictObject({
  $schema: z.literal('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json'),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'reverse-DNS namespace, one slash, server name'),
  title: z.string().min(1).max(100).optional(),
  description: z.string().min(1).max(100),
  version: exactVersion,
  packages: z
    .array(
      z.strictObject({
        registryType: z.literal('npm'),
        registryBaseUrl: z.literal('https://registry.npmjs.org').optional(),
        identifier: z.string().min(1),
        version: exactVersion,
        transport: z.strictObject({ type: z.literal('stdio') }),
      }),
    )
    .length(1),
});

describe('server.json, the MCP registry entry', () => {
  const parsed = ServerJson.safeParse(serverJson);

  it('has the registry fields, within their limits', () => {
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it('describes this npm package at this version, over stdio', () => {
    const entry = parsed.data;
    expect(entry?.version).toBe(pkg.version);
    expect(entry?.packages[0]).toMatchObject({
      registryType: 'npm',
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: 'stdio' },
    });
    // The package's command, run with no flags, is the stdio server the entry describes.
    expect(Object.keys(pkg.bin)).toEqual([pkg.name]);
  });

  it("has the name package.json's mcpName claims, which the registry checks on npm", () => {
    expect(parsed.data?.name).toBe(pkg.mcpName);
  });
});

describe('the scripts', () => {
  it('ask no one installing the package to approve a script: the build runs when it is packed (issue 33 item 5)', () => {
    // npm 11 lists these on a tarball or global install as "not yet covered by allowScripts".
    const installScripts = ['preinstall', 'install', 'postinstall', 'prepare', 'preprepare', 'postprepare'];
    expect(Object.keys(pkg.scripts).filter((name) => installScripts.includes(name))).toEqual([]);
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(pkg.scripts.test).toMatch(/^npm run build && /);
  });
});

describe('the licence', () => {
  it('LICENSE is the licence package.json names', () => {
    expect(pkg.license).toBe('MIT');
    expect(read('LICENSE').split('\n')[0]).toBe('MIT License');
  });
});

describe('the supported Node.js versions (docs/adr/0046-supported-node-versions.md)', () => {
  it('are what `engines` says and what the command checks: the same oldest version', () => {
    expect(pkg.engines.node).toBe(`>=${OLDEST_NODE.major}.${OLDEST_NODE.minor}.0`);
    expect(read('README.md')).toContain(`Node.js ${OLDEST_NODE.major}.${OLDEST_NODE.minor} or later`);
  });

  it('are refused below the oldest, in one sentence naming both versions', () => {
    expect(unsupportedNode('18.20.8')).toBe(
      'oxml-mcp needs Node.js 20.19 or later, and this is Node.js 18.20.8.',
    );
    expect(unsupportedNode('v20.18.3')).toMatch(/this is Node\.js 20\.18\.3\.$/);
    for (const version of ['20.19.0', '20.20.2', '22.23.3', '24.21.0', '26.10.0', '100.0.0']) {
      expect(unsupportedNode(version)).toBeUndefined();
    }
  });
});
