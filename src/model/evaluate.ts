import { fromNativeMetrics, Metrics } from './metrics';
import { mapEngineError, nativeEngine, Native } from './native-engine';
import { toNativeData, TrainingData } from './training-data';

export type Split = Native.Split;

/**
 * Filtered ranking metrics of the model saved in `modelDir` on a split: every triple of the
 * split asks for its tail, and through the reverse relation for its head; known answers from
 * train+valid+test other than the true one are filtered out.
 */
export async function evaluate(
  modelDir: string,
  data: TrainingData,
  split: Split,
  threads = 0,
): Promise<Metrics> {
  try {
    return fromNativeMetrics(
      await nativeEngine().evaluate(modelDir, toNativeData(data), split, threads),
    );
  } catch (error) {
    throw mapEngineError(error);
  }
}
