import type * as vegaLite from 'vega-lite';
import type { ReliabilityBin } from './calibration-metrics';

/**
 * The reliability diagram as an SVG: per probability bin, the observed share of true edges
 * against the mean predicted probability, before (the sigmoid) and after calibration, with the
 * diagonal a perfectly calibrated model follows. vega is loaded on first use, as for the
 * training curve (the API process never draws).
 */
export async function renderReliabilityDiagram(
  bins: { before: ReliabilityBin[]; after: ReliabilityBin[] },
  title: string,
): Promise<string> {
  const values = [
    ...bins.before.map((b) => ({ ...b, series: 'before (sigmoid)' })),
    ...bins.after.map((b) => ({ ...b, series: 'after (calibrated)' })),
  ];
  const axis = { type: 'quantitative' as const, scale: { domain: [0, 1] } };
  const spec: vegaLite.TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 360,
    height: 360,
    layer: [
      {
        data: { values: [{ p: 0 }, { p: 1 }] },
        mark: { type: 'line', color: '#999', strokeDash: [4, 4] },
        encoding: {
          x: { field: 'p', ...axis, title: 'mean predicted probability' },
          y: { field: 'p', ...axis, title: 'observed share of true edges' },
        },
      },
      {
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'meanPredicted', ...axis },
          y: { field: 'observed', ...axis },
          color: { field: 'series', type: 'nominal', title: null },
        },
      },
    ],
  };
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
