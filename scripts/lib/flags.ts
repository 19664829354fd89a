/** Flags of the form `--name value` or `--name=value`, each with a default that gives its type. */
export type Flags = Record<string, number | string>;

/**
 * The flags in `argv` over `defaults`. A flag not in `defaults`, one without a value and a
 * number flag given anything but a non-negative number stop the script with `usage` (exit 2).
 */
export function parseFlags<T extends Flags>(argv: readonly string[], defaults: T, usage: string): T {
  const flags: Flags = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(usage);
      process.exit(0);
    }
    const [name, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s) : [undefined];
    if (name === undefined || !(name in defaults)) {
      process.stderr.write(`unknown argument ${arg}\n${usage}`);
      process.exit(2);
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) {
      process.stderr.write(`--${name} needs a value\n${usage}`);
      process.exit(2);
    }
    if (typeof defaults[name] === 'number') {
      const value = Number(raw);
      if (!Number.isFinite(value) || value < 0) {
        process.stderr.write(`--${name} must be a non-negative number\n${usage}`);
        process.exit(2);
      }
      flags[name] = value;
    } else flags[name] = raw;
  }
  return flags as T;
}
