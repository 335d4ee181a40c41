import { ErrorCode, KgcError } from '../errors';
import type { GraphSize } from './graph-size';
import { mapEngineError, nativeEngine, Native } from './native-engine';

/** Settings a user changes (camelCase; the binding's typed object). */
export type TrainingOverrides = Native.TrainingOverrides;

/** The training losses: the paper's BCE per entity, or a softmax cross-entropy over all. */
export const TRAINING_LOSSES = ['bce', 'softmax'] as const satisfies readonly Native.TrainingLoss[];
export type TrainingLoss = (typeof TRAINING_LOSSES)[number];

/** Every training setting of a run, as the engine resolved them. */
export type EngineConfig = Native.TrainingConfig;

/**
 * The engine config of `preset` plus `overrides`. With `graph`, the `default` preset is sized to
 * that graph around the overrides: they win, and sized settings that depend on them follow (the
 * learning rate follows an overridden batch size; the lr decay an overridden epoch count where
 * the training budget binds). With `budgetEpochs` (what fits in a time budget), the schedule is
 * planned for that many epochs. Unknown presets and settings, and values out of range, are
 * BAD_USER_INPUT naming them.
 */
export function resolveTrainingConfig(
  preset: string,
  overrides: TrainingOverrides = {},
  graph?: GraphSize,
  budgetEpochs?: number,
): EngineConfig {
  const engine = nativeEngine();
  const presets = engine.presets();
  if (!presets.includes(preset)) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `Unknown preset "${preset}": use one of ${presets.join(', ')}.`,
    );
  }
  try {
    // Overrides often come from stored JSON: a name the engine does not know is a mistake,
    // not something to drop silently.
    const known = Object.keys(engine.presetConfig(preset));
    for (const [key, value] of Object.entries(overrides)) {
      if (value !== undefined && !known.includes(key))
        throw new KgcError(ErrorCode.BAD_USER_INPUT, `Unknown training setting "${key}".`);
    }
    return engine.presetConfig(preset, graph, overrides, budgetEpochs);
  } catch (error) {
    throw isArgumentTypeError(error)
      ? new KgcError(ErrorCode.BAD_USER_INPUT, (error as Error).message, { cause: error })
      : mapEngineError(error);
  }
}

/** napi-rs refuses a value of the wrong type (naming the setting) with one of these codes. */
const ARGUMENT_TYPE_CODES = ['InvalidArg', 'NumberExpected', 'StringExpected', 'ObjectExpected'];

function isArgumentTypeError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ARGUMENT_TYPE_CODES.includes(code);
}
