import http from 'node:http';
import { setCorsHeaders } from '../../../src/server/cors';

function headersFor(origin: string | undefined, allowed: string[]) {
  const request = { headers: origin ? { origin } : {} } as http.IncomingMessage;
  const set: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => (set[name] = value),
  } as unknown as http.ServerResponse;
  setCorsHeaders(request, response, allowed);
  return set;
}

describe('CORS', () => {
  it('allows only the configured origins', () => {
    expect(headersFor('https://app.example', ['https://app.example'])).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      vary: 'Origin',
    });
    expect(headersFor('https://evil.example', ['https://app.example'])).toEqual({});
    expect(headersFor('https://app.example', [])).toEqual({});
    expect(headersFor(undefined, ['*'])).toEqual({});
    expect(headersFor('https://any.example', ['*'])['access-control-allow-origin']).toBe('*');
  });
});
