import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { REPO_ROOT } from '../../repo-root';

/** Where the Neo4j version is pinned, once: Maven fetches these jars (scripts/neo4j/fetch.sh). */
const POM = path.join(REPO_ROOT, 'scripts', 'neo4j', 'pom.xml');

let pinned: string | undefined;

/**
 * The Neo4j version of the local server, read from scripts/neo4j/pom.xml on first use (only the
 * local server needs it; an image that talks to NEO4J_URI carries no pom).
 */
export function neo4jVersion(): string {
  if (pinned !== undefined) return pinned;
  const text = fs.existsSync(POM) ? fs.readFileSync(POM, 'utf8') : '';
  const version = /<neo4j\.version>([^<]+)<\/neo4j\.version>/.exec(text)?.[1]?.trim();
  if (!version) {
    throw new KgcError(
      ErrorCode.NEO4J_SETUP_FAILED,
      `No <neo4j.version> in ${POM}: the local Neo4j needs the repository's scripts/neo4j; ` +
        'or set NEO4J_URI to use a running server.',
    );
  }
  pinned = version;
  return version;
}
