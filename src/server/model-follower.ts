import fs from 'node:fs';
import type { Database } from '../graph';
import { getActiveVersion } from '../graph/registry';
import { ModelStore, openVersionDir, loadScorerAsync } from '../model';
import type { ServingModel } from '../model';
import type { Logger } from './logger';

export interface FollowOptions {
  store: ModelStore;
  scope: string;
  pollMs: number;
}

/**
 * Serves the registry's active version and follows promotions and rollbacks without a restart:
 * a new version is loaded beside the one serving (off the JS thread, so requests keep being
 * answered meanwhile), then swapped in with one assignment. Requests
 * take the model once when they start (see RequestContext), so none mixes two versions; the old
 * one is freed by the garbage collector once its last request ends. A version that cannot be
 * loaded (missing or corrupt directory) is refused and logged, and the current one keeps serving.
 */
export class ModelFollower {
  private serving: ServingModel | undefined;
  private refused: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly options: FollowOptions,
    private readonly logger: Logger,
    private readonly onSwap?: (model: ServingModel) => void,
  ) {}

  current(): ServingModel | undefined {
    return this.serving;
  }

  /** Loads the active version now (if any), then keeps following it. */
  async start(): Promise<void> {
    await this.poll();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
  }

  /**
   * One look at the registry; exposed so tests and the demo need not wait for the timer. Never
   * rejects: a failure is logged and the current version keeps serving (a rejection on the
   * timer's path would be unhandled and end the process).
   */
  poll(): Promise<void> {
    this.polling ??= this.check()
      .catch((error: unknown) => {
        this.logger.error(
          { err: error, serving: this.serving?.version },
          'checking the active model version failed; keeping the current one',
        );
      })
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      // poll() does not reject; the catch is the last line should logging itself throw.
      this.poll()
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, this.options.pollMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    let active;
    try {
      active = await getActiveVersion(this.db, this.options.scope);
    } catch (error) {
      this.logger.warn(
        { err: error },
        'cannot read the active model version; keeping the current one',
      );
      return;
    }
    if (!active || active.version === this.serving?.version || active.version === this.refused) {
      return;
    }
    const dir = fs.existsSync(active.dir) ? active.dir : this.options.store.dir(active.version);
    try {
      const { version } = openVersionDir(dir, active.version);
      const started = Date.now();
      const next: ServingModel = { scorer: await loadScorerAsync(dir), source: version, version };
      const previous = this.serving?.version;
      this.serving = next;
      this.refused = undefined;
      this.onSwap?.(next);
      this.logger.info(
        { version, previous, loadMs: Date.now() - started },
        previous ? 'serving a new model version' : 'serving the active model version',
      );
    } catch (error) {
      this.refused = active.version;
      this.logger.error(
        { err: error, version: active.version, serving: this.serving?.version },
        'refused to load the active model version; still serving the previous one',
      );
    }
  }
}
