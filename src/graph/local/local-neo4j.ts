import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import { ErrorCode, KgcError } from '../../errors';
import type { ConnectionTarget } from '../database';
import { findFreePort, isPortTaken } from './free-port';
import { setInitialPassword } from './initial-password';
import type { AdminCommand } from './initial-password';
import {
  clearState,
  createCredentials,
  InstanceState,
  isInstanceProcess,
  readCredentials,
  readState,
  writeState,
} from './instance-state';
import { renderNeo4jConf } from './neo4j-conf';
import { ensureNeo4jHome } from './neo4j-home';
import { neo4jVersion } from './neo4j-version';
import { processCommandLine, processStartTime } from './process-identity';
import { findJava } from './java-runtime';
import { isProcessAlive } from '../../process-alive';

export interface LocalNeo4jOptions {
  /** The instance folder (conf, data, logs, state). */
  dir: string;
  /** Where the Neo4j home (jars) is cached across clones. */
  cacheDir: string;
  javaHome: string | undefined;
  /** 0 picks a free port. */
  boltPort: number;
  heap: string;
  pageCache: string;
  database: string;
  readyTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface LocalNeo4jStatus {
  running: boolean;
  pid?: number;
  boltUri?: string;
  responsive: boolean;
  dir: string;
}

/** A real Neo4j 5.26 server from Maven Central jars, started through the bootloader. */
export class LocalNeo4j {
  private readonly log: (line: string) => void;

  constructor(private readonly options: LocalNeo4jOptions) {
    this.log = options.log ?? (() => undefined);
  }

  get dir(): string {
    return this.options.dir;
  }

  get database(): string {
    return this.options.database;
  }

  /**
   * How to run neo4j-admin against this instance: the server's own jars and conf (fetched if
   * needed), so an admin command sees the same data folder and settings as the server.
   */
  adminCommand(): AdminCommand {
    const home = ensureNeo4jHome(this.options.cacheDir, this.log);
    return {
      java: findJava(this.options.javaHome),
      classpath: `${path.join(home, 'lib')}/*`,
      // The child inherits the environment as any spawned process does; config is not read here.
      // eslint-disable-next-line no-restricted-properties
      env: { ...process.env, NEO4J_HOME: home, NEO4J_CONF: path.join(this.dir, 'conf') },
    };
  }

  /** Connection target of the running instance, or undefined when none runs. */
  connection(): ConnectionTarget | undefined {
    const state = readState(this.dir);
    const credentials = readCredentials(this.dir);
    if (!state || !credentials || !isInstanceProcess(state)) return undefined;
    return {
      uri: `bolt://127.0.0.1:${state.boltPort}`,
      user: credentials.user,
      password: credentials.password,
      database: this.options.database,
    };
  }

  async status(): Promise<LocalNeo4jStatus> {
    const state = readState(this.dir);
    const target = this.connection();
    if (!state || !target) return { running: false, responsive: false, dir: this.dir };
    return {
      running: true,
      pid: state.pid,
      boltUri: target.uri,
      responsive: await this.answersQuery(target),
      dir: this.dir,
    };
  }

  /** Starts the server unless it already runs; resolves once `RETURN 1` succeeds over Bolt. */
  async start(ownerPid?: number): Promise<ConnectionTarget> {
    const running = this.connection();
    if (running && (await this.answersQuery(running))) return running;
    if (running) await this.stop();

    const admin = this.adminCommand();
    const { java, classpath, env } = admin;
    const boltPort = this.options.boltPort === 0 ? await findFreePort() : this.options.boltPort;
    if (await isPortTaken(boltPort)) {
      throw new KgcError(
        ErrorCode.NEO4J_SETUP_FAILED,
        `Port ${boltPort} is taken: set KGC_NEO4J_BOLT_PORT to a free port (0 picks one).`,
      );
    }
    for (const sub of ['conf', 'data', 'logs', 'run', 'import', 'plugins']) {
      fs.mkdirSync(path.join(this.dir, sub), { recursive: true });
    }
    const conf = renderNeo4jConf({ ...this.options, boltPort });
    fs.writeFileSync(path.join(this.dir, 'conf', 'neo4j.conf'), conf);

    const credentials = readCredentials(this.dir) ?? (await this.initialisePassword(admin));
    const consoleLog = fs.openSync(path.join(this.dir, 'logs', 'console.log'), 'a');
    const child = spawn(
      java,
      ['-Xmx128m', '-cp', classpath, 'org.neo4j.server.startup.Neo4jCommand', 'console'],
      { env, detached: true, stdio: ['ignore', consoleLog, consoleLog] },
    );
    fs.closeSync(consoleLog);
    child.unref();
    const state: InstanceState = {
      pid: child.pid ?? -1,
      pidStartTime: child.pid === undefined ? undefined : processStartTime(child.pid),
      boltPort,
      startedAt: new Date().toISOString(),
      neo4jVersion: neo4jVersion(),
      ownerPid,
    };
    writeState(this.dir, state);
    const target: ConnectionTarget = {
      uri: `bolt://127.0.0.1:${boltPort}`,
      ...credentials,
      database: this.options.database,
    };
    await this.waitUntilReady(state.pid, target);
    this.log(`Neo4j ${neo4jVersion()} ready on ${target.uri} (data in ${this.dir})`);
    return target;
  }

  /**
   * Graceful stop (SIGTERM: the server checkpoints), SIGKILL after the timeout. Only processes
   * proven to be this instance's are signalled: the recorded bootloader (start time checked) and
   * the server JVM whose command line names this instance's conf folder.
   */
  async stop(timeoutMs = 60_000): Promise<boolean> {
    const state = readState(this.dir);
    const pids = [
      state && isInstanceProcess(state) ? state.pid : undefined,
      this.serverPid(),
    ].filter((pid): pid is number => pid !== undefined);
    if (pids.length === 0) {
      clearState(this.dir);
      return false;
    }
    // Fixed now, so a PID reused while the server stops is never signalled.
    const started = new Map(pids.map((pid) => [pid, processStartTime(pid)]));
    const ours = (pid: number) => isProcessAlive(pid) && processStartTime(pid) === started.get(pid);
    for (const pid of pids) signal(pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (pids.some(ours) && Date.now() < deadline) await sleep(200);
    for (const pid of pids.filter(ours)) signal(pid, 'SIGKILL');
    clearState(this.dir);
    return true;
  }

  /** The forked server JVM, as the bootloader records it, if it runs with this instance's conf. */
  private serverPid(): number | undefined {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(path.join(this.dir, 'run', 'neo4j.pid'), 'utf8').trim());
    } catch {
      return undefined;
    }
    if (!Number.isInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return undefined;
    const conf = path.join(this.dir, 'conf');
    const flags = new Set([conf, path.resolve(conf)].map((dir) => `--config-dir=${dir}`));
    const args = processCommandLine(pid)?.split(' ') ?? [];
    return args.some((arg) => flags.has(arg)) ? pid : undefined;
  }

  /** The password must be set before the first start, or drivers hit a forced change. */
  private async initialisePassword(admin: AdminCommand) {
    if (fs.existsSync(path.join(this.dir, 'data', 'databases'))) {
      throw new KgcError(
        ErrorCode.NEO4J_SETUP_FAILED,
        `${this.dir} holds a database but no credentials.json: remove the folder to start afresh.`,
      );
    }
    const credentials = createCredentials(this.dir);
    try {
      await setInitialPassword(admin, this.dir, credentials.password);
    } catch (error) {
      fs.rmSync(path.join(this.dir, 'credentials.json'), { force: true });
      throw error;
    }
    return credentials;
  }

  private async waitUntilReady(pid: number, target: ConnectionTarget): Promise<void> {
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 120_000);
    while (Date.now() < deadline) {
      if (!isProcessAlive(pid)) {
        clearState(this.dir);
        throw new KgcError(
          ErrorCode.NEO4J_SETUP_FAILED,
          `Neo4j exited during start-up. Last log lines:\n${this.consoleTail()}`,
        );
      }
      if (await this.answersQuery(target)) return;
      await sleep(500);
    }
    await this.stop();
    throw new KgcError(
      ErrorCode.NEO4J_SETUP_FAILED,
      `Neo4j did not answer within the timeout.\n${this.consoleTail()}`,
    );
  }

  private consoleTail(): string {
    try {
      const text = fs.readFileSync(path.join(this.dir, 'logs', 'console.log'), 'utf8');
      return text.trim().split('\n').slice(-15).join('\n');
    } catch {
      return '(no console log)';
    }
  }

  private async answersQuery(target: ConnectionTarget): Promise<boolean> {
    const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password), {
      connectionTimeout: 2000,
      maxConnectionPoolSize: 1,
    });
    try {
      const session = driver.session({ database: target.database });
      try {
        await session.run('RETURN 1');
        return true;
      } finally {
        await session.close();
      }
    } catch {
      return false;
    } finally {
      await driver.close();
    }
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
