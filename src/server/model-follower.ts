import type { Database } from '../graph';
import { getActiveVersion, promotedVersions } from '../graph/registry';
import { isStoreFailure, ModelStore, openVersionDir, loadServingModelAsync } from '../model';
import type { ServingModel } from '../model';
import type { Logger } from './logger';

export interface FollowOptions {
  store: ModelStore;
  scope: string;
  pollMs: number;
}

/** The active version does not load; `serving` is what answers instead (undefined: nothing). */
export interface ModelFallback {
  active: string;
  serving: string | undefined;
}

export interface FollowerEvents {
  onSwap?: (model: ServingModel) => void;
  /** A version was refused because its files do not load. */
  onRefused?: (version: string) => void;
}

/**
 * Serves the registry's active version and follows promotions and rollbacks without a restart:
 * a new version is loaded beside the one serving (off the JS thread, so requests keep being
 * answered meanwhile), then swapped in with one assignment. Requests
 * take the model once when they start (see RequestContext), so none mixes two versions; the old
 * one is freed by the garbage collector once its last request ends. A version that cannot be
 * loaded (missing or corrupt directory) is refused and logged, and the current one keeps serving;
 * with none yet (a start on a corrupt active version), the most recently promoted version that
 * loads serves instead. Either way `fallback()` reports it until a loadable version is active.
 * With a remote model store, a version this machine lacks is downloaded before it loads; a
 * store that fails (unreachable, refusing) refuses nothing: the next poll tries again. After a
 * swap, cached versions that retention removed from the store are dropped from this machine;
 * between swaps, files another machine added to the serving version are fetched.
 */
export class ModelFollower {
  private serving: ServingModel | undefined;
  private refused: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;
  private addedFailing = false;
  private readonly events: FollowerEvents;

  constructor(
    private readonly db: Database,
    private readonly options: FollowOptions,
    private readonly logger: Logger,
    events?: FollowerEvents | ((model: ServingModel) => void),
  ) {
    this.events = typeof events === 'function' ? { onSwap: events } : (events ?? {});
  }

  current(): ServingModel | undefined {
    return this.serving;
  }

  /** Set while the registry's active version is refused (its files do not load). */
  fallback(): ModelFallback | undefined {
    return this.refused === undefined
      ? undefined
      : { active: this.refused, serving: this.serving?.version };
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
   * One look at the registry that starts after this call (a check already in flight may have read
   * the registry before the caller's change: it is waited for first); exposed so tests and the
   * demo need not wait for the timer. Never rejects: a failure is logged and the current version
   * keeps serving (a rejection on the timer's path would be unhandled and end the process).
   */
  async poll(): Promise<void> {
    while (this.polling) await this.polling;
    if (this.stopped) return;
    this.polling = this.check()
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

  private async load(version: string, registered: string): Promise<ServingModel> {
    const dir = await this.options.store.locate(version, registered);
    openVersionDir(dir, version);
    return loadServingModelAsync(dir, version);
  }

  private swap(next: ServingModel, started: number, message: string): void {
    const previous = this.serving?.version;
    this.serving = next;
    this.events.onSwap?.(next);
    this.logger.info({ version: next.version, previous, loadMs: Date.now() - started }, message);
    void this.evict([next.version, previous].filter((v): v is string => v !== undefined));
  }

  /**
   * Fetches what another machine added to the serving version since (its suggestions, computed
   * after the promotion); the review queue reads the new file on its next request. A failure is
   * logged once, until a poll succeeds again.
   */
  private async refreshAdded(version: string): Promise<void> {
    try {
      const fetched = await this.options.store.refreshAdded(version);
      if (fetched.length > 0)
        this.logger.info({ version, fetched }, 'fetched files added to the serving model version');
      this.addedFailing = false;
    } catch (error) {
      if (!this.addedFailing) {
        this.logger.warn(
          { err: error, version },
          'cannot fetch files added to the serving model version',
        );
      }
      this.addedFailing = true;
    }
  }

  /** Best effort: a cache that keeps a removed version only costs disk until the next swap. */
  private async evict(keep: string[]): Promise<void> {
    try {
      const evicted = await this.options.store.evictRemoved(keep);
      if (evicted.length > 0) {
        this.logger.info({ evicted }, 'dropped cached model versions the store no longer holds');
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not drop cached model versions');
    }
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
      if (active?.version === this.serving?.version) this.refused = undefined;
      if (active && active.version === this.serving?.version)
        await this.refreshAdded(active.version);
      return;
    }
    const started = Date.now();
    try {
      const next = await this.load(active.version, active.dir);
      this.refused = undefined;
      this.swap(
        next,
        started,
        this.serving ? 'serving a new model version' : 'serving the active model version',
      );
    } catch (error) {
      if (isStoreFailure(error)) {
        this.logger.error(
          { err: error, version: active.version, serving: this.serving?.version },
          'cannot fetch the active model version from the model store; trying again at the next poll',
        );
        if (!this.serving) await this.fallBack(active.version);
        return;
      }
      this.refused = active.version;
      this.events.onRefused?.(active.version);
      this.logger.error(
        { err: error, version: active.version, serving: this.serving?.version },
        this.serving
          ? 'refused to load the active model version; still serving the previous one'
          : 'refused to load the active model version; looking for an earlier promoted one',
      );
      if (!this.serving) await this.fallBack(active.version);
    }
  }

  /** Serves the most recently promoted version that loads, other than the refused active one. */
  private async fallBack(refused: string): Promise<void> {
    let earlier;
    try {
      earlier = await promotedVersions(this.db, this.options.scope);
    } catch (error) {
      this.logger.error({ err: error }, 'cannot list earlier model versions to fall back to');
      return;
    }
    for (const candidate of earlier) {
      if (candidate.version === refused) continue;
      const started = Date.now();
      try {
        const next = await this.load(candidate.version, candidate.dir);
        this.swap(next, started, 'serving a fallback model version');
        this.logger.error(
          { active: refused, serving: next.version },
          'the active model version does not load: serving the most recently promoted version that does (roll back, promote or retrain to clear this)',
        );
        return;
      } catch (error) {
        if (!isStoreFailure(error)) this.events.onRefused?.(candidate.version);
        this.logger.warn(
          { err: error, version: candidate.version },
          'an earlier model version does not load either',
        );
      }
    }
    this.logger.error(
      { active: refused },
      'no promoted model version loads: serving no model (retrain with `npx kgc train`)',
    );
  }
}
