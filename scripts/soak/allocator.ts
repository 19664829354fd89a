/** glibc's mmap threshold fixed at 1 MiB: the README's setting for a long-running server. */
export const RECOMMENDED_ALLOCATOR: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '1048576' };

/**
 * The allocator settings the server runs with. The SDK passes the child a minimal environment,
 * so they are set here: glibc variables from this environment if there are any, else the
 * recommended setting unless `glibc` (its defaults) is asked for.
 */
export function allocatorEnvironment(choice: string): Record<string, string> {
  if (choice !== 'recommended' && choice !== 'glibc') {
    process.stderr.write(`--allocator must be recommended or glibc, not ${choice}\n`);
    process.exit(2);
  }
  const given = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        (entry[0].startsWith('MALLOC_') || entry[0] === 'GLIBC_TUNABLES') && entry[1] !== undefined,
    ),
  );
  if (Object.keys(given).length > 0) return given;
  return choice === 'recommended' ? { ...RECOMMENDED_ALLOCATOR } : {};
}
