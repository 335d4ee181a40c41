import { ErrorCode, KgcError } from '../errors';
import type { GraphSize } from './graph-size';
import { mapEngineError, nativeEngine } from './native-engine';

export const PRESETS = ['default', 'fb15k-237', 'wn18rr'] as const;
export type Preset = (typeof PRESETS)[number];

/** Overridable settings, camelCase; names map one-to-one to the engine's snake_case config. */
export interface TrainingOverrides {
  entityDim?: number;
  relationDim?: number;
  dropoutIn?: number;
  dropoutH1?: number;
  dropoutH2?: number;
  labelSmoothing?: number;
  activation?: 'prelu' | 'leaky_relu' | 'relu';
  inverseMode?: 'new_relation' | 'same_relation';
  init?: 'kaiming_uniform' | 'xavier_normal';
  seed?: number;
  lr?: number;
  decay?: number;
  batchSize?: number;
  epochs?: number;
  evalEvery?: number;
  patience?: number;
  /** 0 = all cores. */
  threads?: number;
}

const ENGINE_KEYS: Record<keyof TrainingOverrides, string> = {
  entityDim: 'd_e',
  relationDim: 'd_r',
  dropoutIn: 'dropout_in',
  dropoutH1: 'dropout_h1',
  dropoutH2: 'dropout_h2',
  labelSmoothing: 'label_smoothing',
  activation: 'activation',
  inverseMode: 'inverse_mode',
  init: 'init',
  seed: 'seed',
  lr: 'lr',
  decay: 'decay',
  batchSize: 'batch_size',
  epochs: 'epochs',
  evalEvery: 'eval_every',
  patience: 'patience',
  threads: 'threads',
};

/** The engine's complete config (snake_case), as the preset gives it plus the overrides. */
export type EngineConfig = Record<string, unknown>;

/**
 * The engine config of `preset` plus `overrides`. With `graph`, the `default` preset is sized to
 * that graph around the overrides: they win, and sized settings that depend on them follow (the
 * learning rate follows an overridden batch size; the lr decay an overridden epoch count where
 * the training budget binds).
 */
export function resolveTrainingConfig(
  preset: string,
  overrides: TrainingOverrides = {},
  graph?: GraphSize,
): EngineConfig {
  if (!(PRESETS as readonly string[]).includes(preset)) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `Unknown preset "${preset}": use one of ${PRESETS.join(', ')}.`,
    );
  }
  const engineOverrides: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const engineKey = ENGINE_KEYS[key as keyof TrainingOverrides];
    if (!engineKey)
      throw new KgcError(ErrorCode.BAD_USER_INPUT, `Unknown training setting "${key}".`);
    engineOverrides[engineKey] = value;
  }
  try {
    const json = nativeEngine().presetConfig(preset, graph, JSON.stringify(engineOverrides));
    return JSON.parse(json) as EngineConfig;
  } catch (error) {
    throw withUserNames(mapEngineError(error));
  }
}

/** The engine names settings in snake_case; users set them in camelCase. */
function withUserNames(error: KgcError): KgcError {
  let message = error.message;
  for (const [userKey, engineKey] of Object.entries(ENGINE_KEYS)) {
    message = message.replaceAll(`\`${engineKey}\``, `"${userKey}"`);
  }
  return message === error.message ? error : new KgcError(error.code, message, { cause: error });
}
