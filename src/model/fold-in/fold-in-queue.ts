import type { ServingModel } from '../serving-model';

interface Waiter {
  resolve(model: ServingModel | undefined): void;
  timer: NodeJS.Timeout;
}

/**
 * Entities waiting for fold-in, and the requests waiting for them. Requests' entities go
 * first (a caller is waiting); the background's follow, each entity once however often asked.
 */
export class FoldInQueue {
  private readonly urgent = new Set<string>();
  private readonly background = new Set<string>();
  private readonly waiters = new Map<string, Waiter[]>();

  get size(): number {
    return this.urgent.size + this.background.size;
  }

  /** Entities queued because a request waits for them. */
  get urgentSize(): number {
    return this.urgent.size;
  }

  add(ids: readonly string[], urgent: boolean): void {
    for (const id of ids) {
      if (urgent) {
        this.background.delete(id);
        this.urgent.add(id);
      } else if (!this.urgent.has(id)) this.background.add(id);
    }
  }

  /** Up to `n` entities, urgent ones first, removed from the queue. */
  take(n: number): string[] {
    const batch: string[] = [];
    for (const set of [this.urgent, this.background]) {
      for (const id of set) {
        if (batch.length >= n) return batch;
        batch.push(id);
        set.delete(id);
      }
    }
    return batch;
  }

  /** Resolves with the model once `id` is settled, or undefined after `waitMs`. */
  waitFor(id: string, waitMs: number): Promise<ServingModel | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          const list = this.waiters.get(id) ?? [];
          const rest = list.filter((w) => w !== waiter);
          if (rest.length > 0) this.waiters.set(id, rest);
          else {
            this.waiters.delete(id);
            // Nobody waits for it any more: not fitted ahead of the background's entities.
            this.urgent.delete(id);
          }
          resolve(undefined);
        }, waitMs),
      };
      this.waiters.set(id, [...(this.waiters.get(id) ?? []), waiter]);
    });
  }

  /** The entities' fold-in is done (or failed): their waiters get `model`. */
  settle(ids: readonly string[], model: ServingModel | undefined): void {
    for (const id of ids) {
      for (const waiter of this.waiters.get(id) ?? []) {
        clearTimeout(waiter.timer);
        waiter.resolve(model);
      }
      this.waiters.delete(id);
    }
  }

  /** Shutdown: every waiter answers now, nothing more is folded. */
  cancelAll(): void {
    this.settle([...this.waiters.keys()], undefined);
    this.urgent.clear();
    this.background.clear();
  }
}
