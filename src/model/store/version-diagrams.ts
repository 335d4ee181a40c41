import fs from 'node:fs';
import path from 'node:path';
import { RELIABILITY_FILE } from '../calibration/calibration-file';
import { CURVE_FILE } from './version-info';

/** The SVG diagrams a version directory may hold (both optional: older versions lack them). */
export const VERSION_DIAGRAMS = { trainingCurve: CURVE_FILE, reliability: RELIABILITY_FILE };
export type VersionDiagram = keyof typeof VERSION_DIAGRAMS;

/** Larger files are not ours: the job writes diagrams of a few kilobytes. */
const MAX_DIAGRAM_BYTES = 2 * 1024 * 1024;

/**
 * A version's diagram as SVG text, or null when the directory (pruned) or the file (an older
 * version) is missing or too large. The file name is fixed here, never taken from a client.
 */
export function readVersionDiagram(dir: string, diagram: VersionDiagram): string | null {
  const file = path.join(dir, VERSION_DIAGRAMS[diagram]);
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_DIAGRAM_BYTES) return null;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
