import { ErrorCode, KgcError } from '../../errors';
import type { RankMetrics } from '../../model';

/** An optional non-negative integer option; a bad value names the option. */
export function parseCount(
  value: string | undefined,
  option: string,
  min: number,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || !Number.isSafeInteger(parsed)) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `${option} must be an integer >= ${min}, got "${value}".`,
    );
  }
  return parsed;
}

export function metricsLine(m: RankMetrics): string {
  return (
    `MRR ${m.mrr.toFixed(4)}, MR ${m.mr.toFixed(1)}, Hits@1 ${m.hits1.toFixed(4)}, ` +
    `Hits@3 ${m.hits3.toFixed(4)}, Hits@10 ${m.hits10.toFixed(4)}`
  );
}
