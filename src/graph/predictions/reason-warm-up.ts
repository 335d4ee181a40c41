import type { Database } from '../database';
import { planSizes } from './plan-sizes';
import { reasonEdgesPresent } from './reason-edges';
import { reasonPathsBatch } from './reason-paths';

/** An id no entity is expected to have: the warm-up reads plan, they find nothing. */
const NOBODY = 'kgc:warm-up:nobody';

/**
 * Runs the reasons reads so that Neo4j plans them before a request needs them: Neo4j plans a
 * query on its first run and caches the plan by its text and its list parameters' size bucket
 * (plan-sizes.ts), and the paths read (nested subqueries for rules of one to three steps) takes
 * seconds to plan on a fresh server. `longest`: the most pairs one read may carry.
 */
export async function warmUpReasonReads(db: Database, longest: number): Promise<void> {
  const rule = (index: number, steps: number) => ({
    index,
    types: Array.from({ length: steps }, () => 'kgc_warm_up'),
    forward: Array.from({ length: steps }, () => true),
  });
  for (const size of planSizes(longest)) {
    const pair = {
      head: NOBODY,
      tail: NOBODY,
      relation: 'kgc_warm_up',
      rules: [rule(0, 1), rule(1, 2), rule(2, 3)],
      suggested: NOBODY,
      suggestedIsHead: false,
    };
    await reasonPathsBatch(
      db,
      Array.from({ length: size }, () => pair),
    );
    const edge = { head: NOBODY, relation: 'kgc_warm_up', tail: NOBODY };
    await reasonEdgesPresent(
      db,
      Array.from({ length: size }, () => edge),
    );
  }
}
