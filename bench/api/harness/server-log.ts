import fs from 'node:fs';
import type { TimedLatency } from './timeline';

/** A line of the server's JSON log other than a request: what the server did, and when. */
export interface ServerEvent {
  /** Seconds after the reference moment (negative: before it). */
  at: number;
  level: number;
  msg: string;
  /** The line's own duration field, when it has one (e.g. a warm-up's ms). */
  ms?: number;
}

interface LogLine {
  time?: string;
  level?: number;
  msg?: string;
  ms?: number;
  path?: string;
  operation?: string;
}

function* lines(file: string): Generator<LogLine & { epoch: number }> {
  if (!fs.existsSync(file)) return;
  for (const text of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!text.startsWith('{')) continue;
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      continue;
    }
    const epoch = line.time === undefined ? NaN : Date.parse(line.time);
    if (Number.isFinite(epoch)) yield { ...line, epoch };
  }
}

/**
 * The server's own view of `operation`'s requests (KGC_LOG_LEVEL=info logs one line per
 * request with its server-side ms), as latencies ending when the line was written.
 */
export function serverLatencies(file: string, operation: string): TimedLatency[] {
  const out: TimedLatency[] = [];
  for (const line of lines(file)) {
    if (line.msg === 'request' && line.operation === operation && typeof line.ms === 'number') {
      out.push({ at: line.epoch, ms: line.ms });
    }
  }
  return out;
}

/** Every line that is not a request (start-up work, fold-in, warnings), timed from `reference`. */
export function serverEvents(file: string, reference: number): ServerEvent[] {
  const out: ServerEvent[] = [];
  for (const line of lines(file)) {
    if (line.msg === 'request' || line.msg === undefined) continue;
    out.push({
      at: (line.epoch - reference) / 1000,
      level: line.level ?? 0,
      msg: line.msg,
      ...(typeof line.ms === 'number' ? { ms: line.ms } : {}),
    });
  }
  return out;
}
