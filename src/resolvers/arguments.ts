import { ErrorCode, KgcError } from '../errors';
import { idProblem } from '../graph';
import type { ServingModel } from '../model';

/** Refuses an empty, overlong or control-character id, naming the argument. */
export function checkId(argument: string, value: string): void {
  const problem = idProblem(argument, value);
  if (problem) throw new KgcError(ErrorCode.BAD_USER_INPUT, `Argument ${problem}.`);
}

export function checkIntRange(argument: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `Argument ${argument} must be from ${min} to ${max}, got ${value}.`,
    );
  }
}

/** The request's model, or MODEL_NOT_READY. */
export function servingModel(model: ServingModel | undefined): ServingModel {
  if (!model) {
    throw new KgcError(
      ErrorCode.MODEL_NOT_READY,
      'No model is being served yet: train one (`npx kgc train` or `npx kgc demo`) and serve it.',
    );
  }
  return model;
}
