import type * as vegaLite from 'vega-lite';
import type { CurvePoint } from './version-info';

/**
 * The training curve as an SVG: loss and validation MRR per epoch, one panel each (their
 * scales differ), drawn by vega-lite compiled to vega and rendered headless (no canvas needed).
 * vega is loaded here, on first use: only the retraining job draws curves, so the API process
 * never loads it.
 */
export async function renderTrainingCurve(points: CurvePoint[], title: string): Promise<string> {
  const values = points.flatMap((p) => [
    ...(p.loss !== undefined ? [{ epoch: p.epoch, series: 'training loss', value: p.loss }] : []),
    ...(p.validMrr !== undefined
      ? [{ epoch: p.epoch, series: 'validation MRR', value: p.validMrr }]
      : []),
  ]);
  const spec: vegaLite.TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    data: { values },
    facet: { row: { field: 'series', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 480,
      height: 160,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'epoch', type: 'quantitative', title: 'epoch', axis: { tickMinStep: 1 } },
        y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } },
        color: { field: 'series', type: 'nominal', legend: null },
      },
    },
  };
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const compiled = compile(spec);
  const view = new vega.View(vega.parse(compiled.spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
