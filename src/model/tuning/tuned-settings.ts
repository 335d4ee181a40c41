import fs from 'node:fs';
import path from 'node:path';
import type { GraphSize } from '../graph-size';
import type { TrainingOverrides } from '../training-settings';

/** Beside the versions in the model store: the winning settings of the last tuning per scope. */
export const TUNED_SETTINGS_FILE = 'tuned-settings.json';

/**
 * Settings tuned on a graph stay good while the graph keeps roughly its size: reused while
 * entities and training triples stay within this factor of what they were when tuned.
 */
const REUSE_FACTOR = 2;

/** One scope's stored winner: what `kgc train --tune` found, for later retraining to reuse. */
export interface TunedSettings {
  /** The winning settings (the preset's fields they override). */
  settings: TrainingOverrides;
  preset: string;
  tunedAt: string;
  /** The version the tuning run wrote. */
  version: string;
  validMrr: number;
  /** The graph they were tuned on. */
  graph: GraphSize;
}

type TunedSettingsFile = Record<string, TunedSettings>;

function readFile(storeRoot: string): TunedSettingsFile {
  const file = path.join(storeRoot, TUNED_SETTINGS_FILE);
  if (!fs.existsSync(file)) return {};
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as TunedSettingsFile) : {};
  } catch {
    // An unreadable file only costs the reuse: retraining falls back to the sized preset.
    return {};
  }
}

/** Records `tuned` as `scope`'s winner (written whole, then renamed into place). */
export function saveTunedSettings(storeRoot: string, scope: string, tuned: TunedSettings): void {
  fs.mkdirSync(storeRoot, { recursive: true });
  const all = { ...readFile(storeRoot), [scope]: tuned };
  const file = path.join(storeRoot, TUNED_SETTINGS_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`);
  fs.renameSync(temp, file);
}

/** What a retraining of `scope` should do with stored tuned settings. */
export type TunedSettingsChoice =
  { use: true; tuned: TunedSettings } | { use: false; tuned?: TunedSettings; reason: string };

/**
 * The stored winner of `scope` when it fits: tuned for the same preset on a graph of about this
 * size (within a factor of 2 in entities and training triples). Otherwise why not.
 */
export function chooseTunedSettings(
  storeRoot: string,
  scope: string,
  preset: string,
  graph: GraphSize,
): TunedSettingsChoice {
  const tuned = readFile(storeRoot)[scope];
  if (!tuned) return { use: false, reason: 'no tuned settings stored' };
  if (tuned.preset !== preset) {
    return { use: false, tuned, reason: `tuned for preset ${tuned.preset}, not ${preset}` };
  }
  const within = (now: number, then: number) =>
    now <= then * REUSE_FACTOR && now * REUSE_FACTOR >= then;
  if (
    !within(graph.entities, tuned.graph.entities) ||
    !within(graph.trainTriples, tuned.graph.trainTriples)
  ) {
    return {
      use: false,
      tuned,
      reason:
        `the graph changed size since tuning (${graph.entities} entities, ${graph.trainTriples} ` +
        `training triples; tuned on ${tuned.graph.entities} and ${tuned.graph.trainTriples}): tune again`,
    };
  }
  return { use: true, tuned };
}
