import { describeWarmStart, openVersionDir } from '../../model';
import type { VersionInfo } from '../../model';

/** How a version's training run started and ran (version.json), or null when pruned/unreadable. */
export function trainingOriginOf(dir: string | null | undefined): VersionInfo['training'] | null {
  if (!dir) return null;
  try {
    return openVersionDir(dir).info.training ?? null;
  } catch {
    return null;
  }
}

/** `trained: warm start from v1 (...): 6 epochs ...; ran 6 epochs (completed)`. */
export function trainingOriginLine(t: VersionInfo['training']): string {
  const ran = `ran ${t.epochsRun} epochs (${t.stop}), kept epoch ${t.modelEpoch}`;
  if (t.warmStartFrom && t.warmStart) {
    const { change, schedule, mapping } = t.warmStart;
    const mapped = mapping
      ? `; ${mapping.copiedEntities} entities and ${mapping.copiedRelations} relations copied, ` +
        `${mapping.newEntities} entities${foldedIn(mapping.foldedInEntities)} and ` +
        `${mapping.newRelations} relations initialised`
      : '';
    return `trained: ${describeWarmStart(t.warmStartFrom, change, schedule)}${mapped}; ${ran}`;
  }
  // Versions written before warm starts existed record neither field: they were fresh inits.
  return `trained: from scratch${t.fromScratch ? ` (${t.fromScratch})` : ''}; ${ran}`;
}

/** `(2 by fold-in)`, or nothing for versions trained before new entities were folded in. */
function foldedIn(count: number | undefined): string {
  return count === undefined ? '' : ` (${count} by fold-in)`;
}
