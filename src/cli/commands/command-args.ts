import { parseDurationSeconds, TRAIN_DEVICES } from '../../config';
import type { TrainDevice } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { TRAINING_LOSSES } from '../../model';
import type { RankMetrics, TrainingLoss } from '../../model';

/**
 * The one parser of integer options (a commander argument parser): a whole number within
 * `range`, or a BAD_USER_INPUT error that names the option and what it expects.
 */
export function integerOption(
  option: string,
  range: { min?: number; max?: number } = {},
): (value: string) => number {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
  const expected =
    range.min !== undefined && range.max !== undefined
      ? `an integer from ${min} to ${max}`
      : range.min !== undefined
        ? `an integer >= ${min}`
        : 'an integer';
  return (value) => {
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || parsed < min || parsed > max) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `${option} must be ${expected}, got "${value}".`,
      );
    }
    return parsed;
  };
}

/** A commander parser of a share from 0 to 1 (a plain decimal number), or a BAD_USER_INPUT error. */
export function fractionOption(option: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d*\.?\d+$/.test(value) || parsed > 1) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `${option} must be a number from 0 to 1, got "${value}".`,
      );
    }
    return parsed;
  };
}

/** A commander parser of durations (`45m`, `1.5h`, `90s`, or seconds), in seconds. */
export function durationOption(option: string): (value: string) => number {
  return (value) => {
    const seconds = parseDurationSeconds(value);
    if (seconds === undefined) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `${option} must be a duration such as 45m, 1.5h or 90s, got "${value}".`,
      );
    }
    return seconds;
  };
}

/** A commander parser of `--device` (auto, cpu or gpu). */
export function deviceOption(option: string): (value: string) => TrainDevice {
  return (value) => {
    if (!(TRAIN_DEVICES as readonly string[]).includes(value)) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `${option} must be one of ${TRAIN_DEVICES.join(', ')}, got "${value}".`,
      );
    }
    return value as TrainDevice;
  };
}

/** A commander parser of `--loss` (bce or softmax). */
export function lossOption(option: string): (value: string) => TrainingLoss {
  return (value) => {
    if (!(TRAINING_LOSSES as readonly string[]).includes(value)) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `${option} must be one of ${TRAINING_LOSSES.join(', ')}, got "${value}".`,
      );
    }
    return value as TrainingLoss;
  };
}

export function metricsLine(m: RankMetrics): string {
  return (
    `MRR ${m.mrr.toFixed(4)}, MR ${m.mr.toFixed(1)}, Hits@1 ${m.hits1.toFixed(4)}, ` +
    `Hits@3 ${m.hits3.toFixed(4)}, Hits@10 ${m.hits10.toFixed(4)}`
  );
}
