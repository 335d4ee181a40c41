import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';

export interface AdminCommand {
  java: string;
  classpath: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Sets the `neo4j` user's password before the first start (`neo4j-admin dbms set-initial-password`),
 * without the password on any command line (where `ps` shows it to every local user): it goes
 * in a picocli argument file (`@file`, which neo4j-admin expands itself), owner-only in a
 * private folder, removed as soon as the command ends.
 */
export async function setInitialPassword(
  admin: AdminCommand,
  instanceDir: string,
  password: string,
): Promise<void> {
  const private_ = fs.mkdtempSync(path.join(instanceDir, '.admin-'));
  fs.chmodSync(private_, 0o700);
  const argFile = path.join(private_, 'password.args');
  try {
    fs.writeFileSync(argFile, `${password}\n`, { mode: 0o600 });
    const args = ['-Xmx128m', '-cp', admin.classpath, 'org.neo4j.server.startup.Neo4jAdminCommand'];
    const { status, output } = await run(
      admin.java,
      [...args, 'dbms', 'set-initial-password', `@${argFile}`],
      admin.env,
    );
    if (status !== 0) {
      throw new KgcError(
        ErrorCode.NEO4J_SETUP_FAILED,
        `Setting the initial Neo4j password failed: ${output.trim().split('\n')[0] ?? `exit ${status}`}`,
      );
    }
  } finally {
    fs.rmSync(private_, { recursive: true, force: true });
  }
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // stderr first in the message: that is where neo4j-admin says what went wrong.
    child.stderr.on('data', (chunk: Buffer) => (output = chunk.toString() + output));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}
