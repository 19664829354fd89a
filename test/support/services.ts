import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/*
 * Services some tests run for real (redis-server, redis-cli, nginx, Saxon-HE, xmllint,
 * DocBook 5's Schematron), never mocked. Missing on a developer's
 * machine, the tests that need them are skipped with the reason in their name; in CI
 * (`OXML_REQUIRE_SERVICES=1`, set by .ci/run after installing them) a missing one fails the run.
 */

const PACKAGES: Record<ServiceName, string> = {
  'redis-server': 'redis-server',
  'redis-cli': 'redis-tools',
  nginx: 'nginx',
  saxon: 'libsaxonhe-java',
  xmllint: 'libxml2-utils',
  'docbook5-sch': 'docbook5-xml',
};
const FROM_ENV: Record<Exclude<ServiceName, 'saxon' | 'docbook5-sch'>, string> = {
  'redis-server': 'REDIS_SERVER',
  'redis-cli': 'REDIS_CLI',
  nginx: 'NGINX',
  xmllint: 'XMLLINT',
};

type ServiceName = 'redis-server' | 'redis-cli' | 'nginx' | 'saxon' | 'xmllint' | 'docbook5-sch';

/** Saxon-HE as Debian installs it, run by the `java` on PATH. */
const SAXON_JAR = '/usr/share/java/Saxon-HE.jar';
/** DocBook 5's Schematron rules as Debian's docbook5-xml installs them (a schema, not a program). */
const DOCBOOK5_SCH = '/usr/share/xml/docbook/schema/schematron/5.0/docbook.sch';

export interface Service {
  /** The executable, or undefined when it is not installed. */
  path: string | undefined;
  /** A title suffix for tests skipped without it ('' when it is there). */
  skipped: string;
}

export function service(name: ServiceName): Service {
  if (name === 'saxon') {
    const java = spawnSync('bash', ['-c', 'command -v java'], { encoding: 'utf8' }).stdout.trim();
    return found(name, java && existsSync(SAXON_JAR) ? SAXON_JAR : undefined);
  }
  if (name === 'docbook5-sch') return found(name, existsSync(DOCBOOK5_SCH) ? DOCBOOK5_SCH : undefined);
  const fromEnv = process.env[FROM_ENV[name]];
  const path =
    fromEnv ??
    (spawnSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim() ||
      [`/usr/sbin/${name}`, `/usr/bin/${name}`].find((path) => existsSync(path)));
  return found(name, path && existsSync(path) ? path : undefined);
}

function found(name: ServiceName, path: string | undefined): Service {
  if (path) return { path, skipped: '' };
  const reason = `${name} is not installed (apt-get install ${PACKAGES[name]})`;
  if (process.env.OXML_REQUIRE_SERVICES === '1') throw new Error(`OXML_REQUIRE_SERVICES=1, but ${reason}`);
  return { path: undefined, skipped: ` [skipped: ${reason}]` };
}
