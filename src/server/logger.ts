import pino, { Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout. Authorization headers and anything named like a secret are redacted
 * wherever they appear in a logged object, as a second line of defence: nothing logs them.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'kgc' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        '*.headers.authorization',
        'password',
        '*.password',
        'key',
        '*.key',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * `kgc serve`'s logger: stdout written in blocks of up to 4 KiB, and at least every 200 ms,
 * instead of one write system call per line (a line per request: a tenth of a saturated
 * server's CPU went to writing them). What is still buffered is written when the process exits
 * (pino flushes on exit); a SIGKILL loses at most the last 200 ms.
 */
export function createServerLogger(level: string): Logger {
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stdout.flush();
    } catch {
      // Closed at exit: nothing left to write.
    }
  }, 200).unref();
  return createLogger(level, stdout);
}

/** A logger that writes nothing (tests, library use). */
export const silentLogger: Logger = pino({ level: 'silent' });
