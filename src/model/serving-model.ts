import path from 'node:path';
import { Scorer } from './scorer';

/** The model answering queries, where it came from, and the version its answers carry. */
export interface ServingModel {
  scorer: Scorer;
  /** The model directory's name (never a full path: it reaches clients). */
  source: string;
  version: string;
}

/** Loads a model directory for serving; unless given, its version is the directory's name. */
export function loadServingModel(dir: string, version?: string): ServingModel {
  const name = path.basename(path.resolve(dir));
  return { scorer: Scorer.load(dir), source: name, version: version ?? name };
}
