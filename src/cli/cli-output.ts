import { isKgcError } from '../errors';

/** Where CLI commands write; an interface so tests can capture it. */
export interface CliOutput {
  info(line: string): void;
  error(line: string): void;
}

export const consoleOutput: CliOutput = {
  info: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
};

/** One line, no stack trace: `error [CODE]: what to do`. */
export function formatError(error: unknown): string {
  if (isKgcError(error)) return `error [${error.code}]: ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return `error [INTERNAL]: ${message}`;
}
