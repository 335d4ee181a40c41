import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';

/** Neo4j 5.26 runs on Java 17 or 21 only. */
const SUPPORTED_MAJORS = [17, 21];

function majorVersion(javaBin: string): number | undefined {
  const result = spawnSync(javaBin, ['-version'], { encoding: 'utf8' });
  if (result.error) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${result.stdout}${result.stderr}`);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 ? Number(match[2]) : first;
}

/**
 * Finds a Java 17 or 21 binary: JAVA_HOME first, then `java` on PATH, then Debian's JVM folder
 * (machines here also carry a newer JDK that Neo4j 5.26 cannot run on).
 */
export function findJava(javaHome: string | undefined): string {
  const candidates: string[] = [];
  if (javaHome) candidates.push(path.join(javaHome, 'bin', 'java'));
  candidates.push('java');
  const jvmDir = '/usr/lib/jvm';
  if (fs.existsSync(jvmDir)) {
    for (const entry of fs.readdirSync(jvmDir).sort()) {
      if (/(^|-)(17|21)(-|\.|$)/.test(entry))
        candidates.push(path.join(jvmDir, entry, 'bin', 'java'));
    }
  }
  for (const candidate of candidates) {
    const major = majorVersion(candidate);
    if (major !== undefined && SUPPORTED_MAJORS.includes(major)) return candidate;
  }
  throw new KgcError(
    ErrorCode.NEO4J_SETUP_FAILED,
    'No Java 17 or 21 found (Neo4j 5.26 needs one): install openjdk-17-jre-headless or set JAVA_HOME.',
  );
}
