import { calibrationLines } from '../../../src/cli/commands/models.command';
import type { CalibrationFile } from '../../../src/model/calibration/calibration-file';

const metrics = { ece: 0.1, brier: 0.2, logLoss: 0.3 };

describe("kgc models show's calibration lines", () => {
  it('prints the summary', () => {
    const lines = calibrationLines({
      fittedOn: 'valid',
      measuredOn: 'test',
      eceBins: 15,
      before: metrics,
      after: { ...metrics, ece: 0.05 },
      fitMix: { positives: 10, rejected: 1, range: 2, uniform: 3 },
    } as unknown as CalibrationFile);
    expect(lines[0]).toContain('ECE 0.1000 -> 0.0500');
    expect(lines[1]).toContain('10 positives; 1 rejections, 2 range and 3 uniform');
  });

  it('prints "?" where a damaged summary has no number, and never throws', () => {
    const damaged = [
      { before: { ece: 'x' }, after: null },
      { before: { ece: 'x', brier: null }, after: {}, fitMix: null, edge: { tailOnly: 1 } },
      { before: metrics, after: metrics, fitMix: 'none', edge: { tailOnly: metrics, after: null } },
    ];
    for (const summary of damaged) {
      expect(() => calibrationLines(summary as unknown as CalibrationFile)).not.toThrow();
    }
    const lines = calibrationLines(damaged[1] as unknown as CalibrationFile);
    expect(lines[0]).toContain('ECE ? -> ?');
    expect(lines[1]).toContain('? positives');
  });
});
