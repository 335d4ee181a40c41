import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { processCommandLine, processStartTime } from './process-identity';
import { isProcessAlive } from '../../process-alive';

/** What `kgc neo4j start` leaves behind so `status` and `stop` (and the app) find the server. */
export interface InstanceState {
  /** The bootloader process; SIGTERM to it shuts the server down gracefully. */
  pid: number;
  /** The bootloader's start time (processStartTime): a reused PID is not mistaken for it. */
  pidStartTime?: string;
  boltPort: number;
  startedAt: string;
  neo4jVersion: string;
  /** The process that started it (a test runner); a dead owner marks a leftover instance. */
  ownerPid?: number;
}

export interface Credentials {
  user: string;
  password: string;
}

const stateFile = (dir: string) => path.join(dir, 'state.json');
const credentialsFile = (dir: string) => path.join(dir, 'credentials.json');

export function readState(dir: string): InstanceState | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile(dir), 'utf8')) as InstanceState;
  } catch {
    return undefined;
  }
}

export function writeState(dir: string, state: InstanceState): void {
  fs.writeFileSync(stateFile(dir), `${JSON.stringify(state, null, 2)}\n`);
}

export function clearState(dir: string): void {
  fs.rmSync(stateFile(dir), { force: true });
}

export function readCredentials(dir: string): Credentials | undefined {
  try {
    return JSON.parse(fs.readFileSync(credentialsFile(dir), 'utf8')) as Credentials;
  } catch {
    return undefined;
  }
}

/**
 * A generated password (144 random bits as hex), stored readable by the owner only; never
 * printed. Hex, not base64url: a password starting with '-' (1 in 64 for base64url) is read as an
 * option by `neo4j-admin dbms set-initial-password`, which then fails for a missing password.
 */
export function createCredentials(dir: string): Credentials {
  const credentials = { user: 'neo4j', password: crypto.randomBytes(18).toString('hex') };
  fs.writeFileSync(credentialsFile(dir), `${JSON.stringify(credentials)}\n`, { mode: 0o600 });
  return credentials;
}

/** The bootloader's main class, on its command line. */
const BOOTLOADER = 'org.neo4j.server.startup.Neo4jCommand';

/**
 * Whether the recorded process still runs and is the one that was started, not an unrelated
 * process that got its PID since: the start time must match (a state from before start times
 * were recorded falls back to the bootloader's command line).
 */
export function isInstanceProcess(state: InstanceState): boolean {
  if (!isProcessAlive(state.pid)) return false;
  if (state.pidStartTime !== undefined) return processStartTime(state.pid) === state.pidStartTime;
  return processCommandLine(state.pid)?.includes(BOOTLOADER) ?? false;
}
