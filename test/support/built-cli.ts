import { fileURLToPath } from 'node:url';

/** The built binary (`npm run build`), which the end-to-end tests and the scripts run. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
