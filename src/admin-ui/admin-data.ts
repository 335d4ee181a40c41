/** Reads and the one mutation of the page besides the queue: who, relations, log, versions, runs. */
import { gql } from './api';

export interface Viewer {
  name: string;
  role: string;
}

export async function fetchViewer(key: string): Promise<Viewer | null> {
  return (await gql<{ viewer: Viewer | null }>(key, '{ viewer { name role } }')).viewer;
}

export interface RelationView {
  name: string;
  edgeCount: number;
  inModel: boolean;
}

export async function fetchRelations(key: string): Promise<RelationView[]> {
  return (await gql<{ relations: RelationView[] }>(key, '{ relations { name edgeCount inModel } }'))
    .relations;
}

export interface DecisionView {
  id: string;
  kind: string;
  head: string;
  relation: string;
  tail: string;
  by: string;
  at: string;
  probability: number | null;
  reason: string | null;
}

export async function fetchDecisions(key: string, first: number): Promise<DecisionView[]> {
  const data = await gql<{ decisions: { items: DecisionView[] } }>(
    key,
    `query($first: Int!) { decisions(first: $first) {
      items { id kind head relation tail by at probability reason } } }`,
    { first },
  );
  return data.decisions.items;
}

export interface VersionView {
  version: string;
  status: string;
  active: boolean;
  createdAt: string;
  trigger: string;
  testMrr: number | null;
  triples: number;
  entities: number;
  relations: number;
  metrics: Record<string, unknown> | null;
  trainingCurveSvg: string | null;
  reliabilitySvg: string | null;
}

export async function fetchVersions(key: string): Promise<VersionView[]> {
  const data = await gql<{ modelVersions: VersionView[] }>(
    key,
    `{ modelVersions(first: 10) { version status active createdAt trigger testMrr triples
      entities relations metrics trainingCurveSvg reliabilitySvg } }`,
  );
  return data.modelVersions;
}

export interface RunView {
  id: string;
  status: string;
  trigger: string;
  phase: string | null;
  epoch: number | null;
  epochs: number | null;
  loss: number | null;
  validMrr: number | null;
  etaSeconds: number | null;
  startedAt: string;
  endedAt: string | null;
  errorCode: string | null;
  version: string | null;
  promoted: boolean | null;
}

export async function fetchRuns(key: string): Promise<RunView[]> {
  const data = await gql<{ trainingRuns: { items: RunView[] } }>(
    key,
    `{ trainingRuns(first: 10) { items { id status trigger phase epoch epochs loss validMrr
      etaSeconds startedAt endedAt errorCode version promoted } } }`,
  );
  return data.trainingRuns.items;
}

export async function requestRetraining(key: string): Promise<string> {
  const data = await gql<{ requestRetraining: { requestedAt: string } }>(
    key,
    'mutation { requestRetraining { id requestedAt } }',
  );
  return data.requestRetraining.requestedAt;
}
