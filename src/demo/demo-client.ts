/**
 * The demo's GraphQL calls, made over real HTTP like an app's: what a user would send with
 * curl, and nothing the API does not offer.
 */

export interface DemoPrediction {
  entity: { id: string };
  rank: number;
  probability: number;
  typeConsistent: boolean | null;
  modelVersion: string;
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export const SAMPLE_QUERY = `query Demo($entity: String!, $relation: String!) {
  missingLinks(entity: $entity, relation: $relation, k: 3) { entity { id } rank probability typeConsistent modelVersion }
}`;

const ACCEPT = `mutation Accept($head: String!, $relation: String!, $tail: String!) {
  acceptPrediction(head: $head, relation: $relation, tail: $tail) {
    head relation tail modelVersion probability acceptedBy acceptedAt
  }
}`;

const BATCH = `query Recovered($queries: [MissingLinksInput!]!) {
  missingLinksBatch(queries: $queries) { entity { id } }
}`;

export async function graphql<T>(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  key?: string,
): Promise<GraphQLResponse<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as GraphQLResponse<T>;
}

export function sampleQuestion(url: string, entity: string, relation: string, key: string) {
  return graphql<{ missingLinks: DemoPrediction[] }>(url, SAMPLE_QUERY, { entity, relation }, key);
}

export function acceptPrediction(
  url: string,
  edge: { head: string; relation: string; tail: string },
  key: string,
) {
  return graphql<{ acceptPrediction: Record<string, unknown> }>(url, ACCEPT, edge, key);
}

/**
 * How many held-out edges (h, r, t) the served model ranks in its top 10 (and first) for
 * (h, r); an edge already back in the graph (accepted) counts as recovered.
 */
export async function countRecovered(
  url: string,
  heldOut: [string, string, string][],
  inGraph: (edge: [string, string, string]) => boolean,
  key: string,
): Promise<{ top10: number; top1: number }> {
  const recovered = { top10: 0, top1: 0 };
  for (let start = 0; start < heldOut.length; start += 256) {
    const chunk = heldOut.slice(start, start + 256);
    const result = await graphql<{ missingLinksBatch: ({ entity: { id: string } }[] | null)[] }>(
      url,
      BATCH,
      { queries: chunk.map(([entity, relation]) => ({ entity, relation, k: 10 })) },
      key,
    );
    chunk.forEach((edge, i) => {
      const top = result.data?.missingLinksBatch[i] ?? [];
      const back = inGraph(edge);
      if (back || top.some((p) => p.entity.id === edge[2])) recovered.top10 += 1;
      if (back || top[0]?.entity.id === edge[2]) recovered.top1 += 1;
    });
  }
  return recovered;
}
