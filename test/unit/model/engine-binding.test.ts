import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../src/errors';
import { mapEngineError, nativeEngine } from '../../../src/model/native-engine';

/** Compiled only into the test build (cargo feature test-exports), so absent from the types. */
interface PanicExports {
  __panicForTests?: (message: string) => void;
  __panicInTaskForTests?: (message: string) => Promise<void>;
}

function panicExports(): Required<PanicExports> {
  const exports = nativeEngine() as unknown as PanicExports;
  if (!exports.__panicForTests || !exports.__panicInTaskForTests) {
    throw new Error(
      'the binding lacks its test exports: rebuild it with KGC_TEST_EXPORTS=1 bash scripts/build-engine.sh',
    );
  }
  return exports as Required<PanicExports>;
}

describe('the native binding', () => {
  const engine = nativeEngine();

  it('turns a panic in a synchronous export into a JS error, and keeps working', () => {
    expect(() => panicExports().__panicForTests('boom')).toThrow(/boom/);
    // The process and the binding are still alive.
    expect(engine.presets()).toContain('default');
  });

  it('turns a panic in an async task into a rejection with ENGINE_INTERNAL', async () => {
    const failure = await panicExports()
      .__panicInTaskForTests('kaboom')
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'ENGINE_INTERNAL', message: 'engine panic: kaboom' });
    expect(mapEngineError(failure).code).toBe(ErrorCode.ENGINE_ERROR);
  });

  it('throws errors with a structured code, not a message prefix', async () => {
    const missing = path.join(os.tmpdir(), 'kgc-no-such-model');
    fs.rmSync(missing, { recursive: true, force: true });
    let thrown: unknown;
    try {
      engine.NeptuneModel.load(missing);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'ENGINE_IO' });
    expect((thrown as Error).message).not.toMatch(/^\[/);
    await expect(engine.loadModel(missing, 0)).rejects.toMatchObject({ code: 'ENGINE_IO' });
    expect(mapEngineError(thrown).code).toBe(ErrorCode.BAD_USER_INPUT);
  });

  it('crosses the config as a typed object with string enums', () => {
    const config = engine.presetConfig('wn18rr', null, { epochs: 3 });
    expect(config).toMatchObject({
      entityDim: 500,
      relationDim: 30,
      activation: 'leaky_relu',
      inverseMode: 'new_relation',
      init: 'xavier_normal',
      epochs: 3,
    });
    // The loss: the paper's BCE in every preset, softmax on request, anything else refused.
    expect(config.loss).toBe('bce');
    expect(engine.presetConfig('default', null, { loss: 'softmax' }).loss).toBe('softmax');
    expect(() =>
      engine.presetConfig('default', null, { loss: 'hinge' as unknown as 'softmax' }),
    ).toThrow(/loss|hinge|softmax/i);
    expect(() => engine.presetConfig('default', null, { dropoutH2: 2 })).toThrow(
      expect.objectContaining({
        code: 'ENGINE_CONFIG',
        message: expect.stringMatching(/dropoutH2/),
      }),
    );
  });
});
