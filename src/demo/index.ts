export {
  DEMO_PREFIX,
  DEMO_RELATIONS,
  demoSamplePerson,
  demoWorld,
  writeDemoGraph,
  writeDemoLabels,
} from './demo-graph';
export { acceptPrediction, countRecovered, sampleQuestion, SAMPLE_QUERY } from './demo-client';
export type { DemoPrediction } from './demo-client';
export { demoCurlCommand, writeDemoKey } from './demo-curl';
