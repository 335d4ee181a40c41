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

/** A logger that writes nothing (tests, library use). */
export const silentLogger: Logger = pino({ level: 'silent' });
