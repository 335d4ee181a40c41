import {
  FULL_RETRAIN_TRIGGER,
  jobRequest,
  supersededByFullRetrain,
} from '../../../src/jobs/retrain-worker';

const options = {
  job: { preset: 'default', timeBudgetSeconds: 60 },
  minChangedEdges: 25,
  minNewEntities: 4,
};

describe("the worker's choice of warm start or full retrain", () => {
  it('warm-starts scheduled and requested runs, and skips small changes only on schedule', () => {
    expect(jobRequest('schedule', options)).toEqual({
      preset: 'default',
      timeBudgetSeconds: 60,
      trigger: 'schedule',
      fromScratch: false,
      minChangedEdges: 25,
      minNewEntities: 4,
    });
    expect(jobRequest('request', options)).toMatchObject({
      fromScratch: false,
      minChangedEdges: 0,
      minNewEntities: 0,
    });
    expect(jobRequest('initial', options)).toMatchObject({ fromScratch: false });
  });

  it('trains the full-retrain schedule from scratch, whatever changed', () => {
    expect(jobRequest(FULL_RETRAIN_TRIGGER, options)).toMatchObject({
      trigger: 'full-schedule',
      fromScratch: true,
      minChangedEdges: 0,
      minNewEntities: 0,
    });
  });

  it('leaves a scheduled warm start to a full retrain due in the same minute', () => {
    const now = new Date('2026-11-29T03:00:00.010Z');
    expect(supersededByFullRetrain(new Date('2026-11-29T03:00:00Z'), now)).toBe(true);
    expect(supersededByFullRetrain(new Date('2026-11-29T03:00:30Z'), now)).toBe(true);
    expect(supersededByFullRetrain(new Date('2026-11-29T04:00:00Z'), now)).toBe(false);
    expect(supersededByFullRetrain(new Date('2026-11-22T03:00:00Z'), now)).toBe(false);
    expect(supersededByFullRetrain(null, now)).toBe(false);
  });
});
