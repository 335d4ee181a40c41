import { ErrorCode, isKgcError } from '../errors';
import { promoteVersion, recordGate, rejectVersion } from '../graph/registry';
import type { ActiveVersion } from '../graph/registry';
import type { DenseGraph } from '../export';
import type { GateResult } from './promotion-gate';
import { runPromotionGate } from './promotion-gate';
import type { StepContext, StepResult } from './step-context';

export interface Candidate {
  version: string;
  dir: string;
  /** The version active when the job started: the gate compares against it, and the promotion
   * happens only if it is still active. */
  active: ActiveVersion | null;
  testMrr: number | null;
}

export interface HeldOut {
  graph: DenseGraph;
  keys: Float64Array;
  test: Int32Array;
  metrics: StepResult['metrics'];
  changedEdges: number | null;
}

function mrr(value: number | null): string {
  return value?.toFixed(4) ?? 'n/a';
}

/**
 * Why the gate keeps the active version, or null when the candidate may be promoted. An active
 * version whose files are unusable cannot keep its place; an empty one (trained on nothing) has
 * nothing to defend. Zero comparable edges against a non-empty one is no evidence for the
 * candidate, so it is not promoted (`--force` still can).
 */
export function gateRefusal(gate: GateResult): string | null {
  if (gate.activeInvalid !== undefined || gate.activeTrained === 0) return null;
  if (gate.compared === 0) {
    return (
      `no held-out edge could be compared with the active version ${gate.activeVersion} ` +
      `(${gate.leftOutUnknown} name an entity or relation it does not know, ` +
      `${gate.leftOutTrained} it trained on): not promoted without --force`
    );
  }
  if (gate.candidateMrr === null || gate.activeMrr === null) return null;
  if (gate.candidateMrr >= gate.activeMrr) return null;
  return (
    `candidate MRR ${mrr(gate.candidateMrr)} is below the active version ${gate.activeVersion}'s ` +
    `${mrr(gate.activeMrr)} as served on ${gate.compared} held-out edges`
  );
}

/**
 * Runs the gate and promotes through the fenced transaction: only while the job holds its
 * lease (JOB_LEASE_LOST fails the run) and only if the version the gate compared against is
 * still active (otherwise the run ends `rejected` and says why: an operator's rollback or
 * promote during the job stands).
 */
export async function gateAndPromote(
  ctx: StepContext,
  candidate: Candidate,
  held: HeldOut,
): Promise<StepResult> {
  const { db, scope, options } = ctx;
  const { version, dir, active } = candidate;
  const base = {
    version,
    dir,
    previousActive: active?.version ?? null,
    metrics: held.metrics,
    changedEdges: held.changedEdges,
  };
  let gate: GateResult | null = null;
  if (active) {
    try {
      gate = await runPromotionGate({
        graph: held.graph,
        keys: held.keys,
        test: held.test,
        candidateDir: dir,
        active,
        threads: options.overrides?.threads ?? 0,
      });
    } catch (error) {
      await rejectVersion(db, version, { error: (error as Error).message }, scope).catch(
        () => undefined,
      );
      throw error;
    }
  }
  const refusal = gate ? gateRefusal(gate) : null;
  const forced = refusal !== null && options.force === true;
  const scores = gate
    ? { candidateMrr: gate.candidateMrr, activeMrr: gate.activeMrr }
    : { candidateMrr: candidate.testMrr, activeMrr: null };
  const summary = gate
    ? `candidate MRR ${mrr(gate.candidateMrr)} vs active ${gate.activeVersion} ${mrr(gate.activeMrr)} as served (models alone ${mrr(gate.candidateModelMrr)} vs ${mrr(gate.activeModelMrr)}) on ${gate.compared} held-out edges (${gate.leftOutUnknown + gate.leftOutTrained} left out${gate.leftOutSampled > 0 ? `, ${gate.leftOutSampled} beyond the sample` : ''})`
    : 'the first version';
  const notPromoted = async (reason: string, verdict: unknown): Promise<StepResult> => {
    await rejectVersion(db, version, verdict, scope);
    ctx.log(`rejected ${version}: ${reason}`);
    return { ...base, ...scores, status: 'rejected', promoted: false, gate, reason };
  };
  if (refusal !== null && !forced) return notPromoted(refusal, { ...gate, reason: refusal });

  const verdict = gate ? { ...gate, forced, ...(forced ? { overruled: refusal } : {}) } : null;
  if (verdict) await recordGate(db, version, verdict, scope);
  await options.beforePromote?.();
  try {
    await promoteVersion(db, version, scope, {
      lease: ctx.lease,
      expectedActive: active?.version ?? null,
    });
  } catch (error) {
    if (isKgcError(error) && error.code === ErrorCode.ACTIVE_VERSION_CHANGED) {
      return notPromoted(error.message, { ...verdict, reason: error.message });
    }
    if (isKgcError(error) && error.code === ErrorCode.JOB_LEASE_LOST) {
      await rejectVersion(db, version, { ...verdict, reason: error.message }, scope).catch(
        () => undefined,
      );
    }
    throw error;
  }
  ctx.log(`promoted ${version}${forced ? ' (forced)' : ''}: ${summary}`);
  return { ...base, ...scores, status: 'succeeded', promoted: true, gate, reason: null };
}
