import packageJson from '../package.json' with { type: 'json' };

/** The package version: the bundle carries it, so nothing is read from disk at run time. */
export const VERSION: string = packageJson.version;
