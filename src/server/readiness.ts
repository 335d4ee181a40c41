import { Database, MigrationRunner } from '../graph';
import type { ServingModel } from '../model';
import type { ModelFallback } from './model-follower';

export interface Readiness {
  ready: boolean;
  /** Why not, one line each (empty when ready). */
  reasons: string[];
  /** Present only when ready but not as configured (a fallback model version), one line each. */
  degraded?: string[];
}

const CHECK_TIMEOUT_MS = 1000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * `/readyz`: the database answers, its migrations are applied, a model is loaded, and the
 * start-up work that would compete with serving is done (or ran past its bound: StartUpWork).
 * Each check is bounded, so the endpoint answers within about a second whatever the database
 * does. Migrations, once seen applied, are not read again (they only ever grow by a deploy).
 */
export class ReadinessCheck {
  private migrationsApplied = false;

  constructor(
    private readonly db: Database,
    /** Where the migrations live; without, only the database and the model are checked. */
    private readonly migrations: { dir: string; chain?: string } | undefined,
    private readonly model: () => ServingModel | undefined,
    /** Set while the active model version is refused (see ModelFollower). */
    private readonly fallback: () => ModelFallback | undefined = () => undefined,
    /** Start-up work still running, by name (StartUpWork.waitingFor); empty: none. */
    private readonly warmingUp: () => string[] = () => [],
  ) {}

  async check(): Promise<Readiness> {
    const reasons: string[] = [];
    if (this.db.unavailable) {
      reasons.push('database: unavailable (retrying in the background)');
    } else {
      try {
        await within(this.db.ping(), CHECK_TIMEOUT_MS);
        if (this.migrations && !this.migrationsApplied) {
          const status = await within(
            new MigrationRunner(this.db, this.migrations).status(),
            CHECK_TIMEOUT_MS,
          );
          const pending = status.filter((m) => m.state === 'pending').map((m) => m.file);
          if (pending.length > 0) reasons.push(`migrations: pending ${pending.join(', ')}`);
          else this.migrationsApplied = true;
        }
      } catch {
        reasons.push('database: unavailable');
      }
    }
    const degraded: string[] = [];
    const fallback = this.fallback();
    // No error text here: /readyz is anonymous, and the log has the details.
    const refused = fallback && `the active version ${fallback.active} does not load (see the log)`;
    if (!this.model()) {
      reasons.push(refused ? `model: ${refused}, nor does any earlier one` : 'model: none loaded');
    } else if (fallback) {
      degraded.push(`model: ${refused}; serving ${fallback.serving ?? 'none'} instead`);
    }
    const warming = this.warmingUp();
    if (warming.length > 0) reasons.push(`warming up: ${warming.join(', ')}`);
    return { ready: reasons.length === 0, reasons, ...(degraded.length > 0 ? { degraded } : {}) };
  }
}
