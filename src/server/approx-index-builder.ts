import type { TopKIndexConfig } from '../config';
import { ErrorCode, KgcError } from '../errors';
import type { ServingModel } from '../model';
import type { Logger } from './logger';

/**
 * Builds the served version's approximate top-k index in the background when
 * KGC_TOPK_INDEX=hnsw (docs/scaling.md): the version serves exactly until its index is built,
 * then `missingLinks` goes through it. A new version's build stops the previous one's; a build
 * that fails is logged and the version keeps serving exactly.
 */
export class ApproxIndexBuilder {
  private building: { abort: AbortController; done: Promise<void> } | undefined;

  constructor(
    private readonly config: TopKIndexConfig,
    private readonly logger: Logger,
  ) {}

  /** Starts indexing `model` (it starts serving now); returns at once. */
  index(model: ServingModel): void {
    if (this.config.kind !== 'hnsw' || model.scorer.approximate) return;
    const entities = model.scorer.entities.length;
    if (entities < this.config.minEntities) {
      this.logger.info(
        { version: model.version, entities, minEntities: this.config.minEntities },
        'top-k stays exact: the version has fewer entities than KGC_TOPK_INDEX_MIN_ENTITIES',
      );
      return;
    }
    this.building?.abort.abort();
    const abort = new AbortController();
    this.building = { abort, done: this.build(model, abort.signal) };
  }

  /** Settles when the build in flight (if any) has finished, failed or stopped. */
  async settled(): Promise<void> {
    await this.building?.done;
  }

  /** Stops a build in flight and waits for it. */
  async stop(): Promise<void> {
    this.building?.abort.abort();
    await this.building?.done;
  }

  private async build(model: ServingModel, signal: AbortSignal): Promise<void> {
    const { version } = model;
    const started = Date.now();
    this.logger.info(
      { version, entities: model.scorer.entities.length, connections: this.config.connections },
      'building the approximate top-k index; top-k is exact until it is built',
    );
    try {
      const built = await model.scorer.buildApproxIndex({
        connections: this.config.connections,
        buildWidth: this.config.buildWidth,
        searchWidth: this.config.searchWidth,
        signal,
        onProgress: (done, total) =>
          this.logger.info(
            { version, done, total, percent: Math.round((100 * done) / Math.max(total, 1)) },
            'building the approximate top-k index',
          ),
      });
      const { sideScanned, entities } = built;
      if (!built.used) {
        this.logger.warn(
          { version, buildMs: Date.now() - started, sideScanned, entities },
          'top-k stays exact: the index graph leaves too many rows to an exact scan beside every search, which would be slower than the exact scan (docs/scaling.md)',
        );
        return;
      }
      this.logger.info(
        {
          version,
          buildMs: Date.now() - started,
          searchWidth: this.config.searchWidth,
          sideScanned,
        },
        'top-k now goes through the approximate index',
      );
    } catch (error) {
      if (error instanceof KgcError && error.code === ErrorCode.TRAINING_ABORTED) {
        this.logger.info({ version }, 'stopped building the approximate top-k index');
        return;
      }
      this.logger.error(
        { err: error, version },
        'building the approximate top-k index failed; top-k stays exact',
      );
    }
  }
}
