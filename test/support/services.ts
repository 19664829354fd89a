import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/*
 * Services some tests run for real (redis-server, redis-cli, nginx), never mocked. Missing on a developer's
 * machine, the tests that need them are skipped with the reason in their name; in CI
 * (`OXML_REQUIRE_SERVICES=1`, set by .ci/run after installing them) a missing one fails the run.
 */

const PACKAGES: Record<ServiceName, string> = {
  'redis-server': 'redis-server',
  'redis-cli': 'redis-tools',
  nginx: 'nginx',
};
const FROM_ENV: Record<ServiceName, string> = {
  'redis-server': 'REDIS_SERVER',
  'redis-cli': 'REDIS_CLI',
  nginx: 'NGINX',
};

type ServiceName = 'redis-server' | 'redis-cli' | 'nginx';

export interface Service {
  /** The executable, or undefined when it is not installed. */
  path: string | undefined;
  /** A title suffix for tests skipped without it ('' when it is there). */
  skipped: string;
}

export function service(name: ServiceName): Service {
  const fromEnv = process.env[FROM_ENV[name]];
  const found =
    fromEnv ??
    (spawnSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim() ||
      [`/usr/sbin/${name}`, `/usr/bin/${name}`].find((path) => existsSync(path)));
  const path = found && existsSync(found) ? found : undefined;
  if (path) return { path, skipped: '' };
  const reason = `${name} is not installed (apt-get install ${PACKAGES[name]})`;
  if (process.env.OXML_REQUIRE_SERVICES === '1') throw new Error(`OXML_REQUIRE_SERVICES=1, but ${reason}`);
  return { path: undefined, skipped: ` [skipped: ${reason}]` };
}
