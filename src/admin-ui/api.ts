/** The page's one door to the API: POST /graphql with the key as a Bearer header (no cookies). */

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function gql<T>(
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new ApiError('The API does not answer: is the server running?', 'NETWORK');
  }
  let body: GraphQLResponse<T>;
  try {
    body = (await response.json()) as GraphQLResponse<T>;
  } catch {
    throw new ApiError(`The API answered ${response.status} without JSON.`, 'HTTP');
  }
  const first = body.errors?.[0];
  if (first) throw new ApiError(first.message, first.extensions?.code ?? 'ERROR');
  if (!body.data) throw new ApiError(`The API answered ${response.status} without data.`, 'HTTP');
  return body.data;
}

/** An error as one line for the page. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
