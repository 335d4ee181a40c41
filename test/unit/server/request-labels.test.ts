import { errorCodeLabel, requestLabels } from '../../../src/server/request-labels';

describe('request metric labels', () => {
  it('maps any path and method outside the fixed sets to other', () => {
    expect(requestLabels('/graphql', 'POST', 'missingLinks', 200)).toEqual({
      route: '/graphql',
      method: 'POST',
      operation: 'missingLinks',
      status: '200',
    });
    expect(requestLabels('/graphql/', 'PROPFIND', undefined, 404)).toEqual({
      route: 'other',
      method: 'other',
      operation: 'none',
      status: '404',
    });
    expect(requestLabels('/%zz/../../x', 'get', undefined, 404).route).toBe('other');
    expect(requestLabels('/healthz', 'GET', undefined, 200).route).toBe('/healthz');
    // The review page's files and any path under it: one label, whatever the client sends.
    for (const path of ['/admin', '/admin/', '/admin/main-X.js', '/admin/../../etc/passwd']) {
      expect(requestLabels(path, 'GET', undefined, 200).route).toBe('/admin');
    }
    expect(requestLabels('/administrator', 'GET', undefined, 404).route).toBe('other');
  });

  it('counts several root fields as one operation label, whatever their combination', () => {
    expect(requestLabels('/graphql', 'POST', 'entity,missingLinks', 200).operation).toBe('several');
    expect(requestLabels('/graphql', 'POST', 'health,model,relations', 200).operation).toBe(
      'several',
    );
    expect(requestLabels('/graphql', 'POST', '', 400).operation).toBe('none');
  });

  it('keeps known error codes and folds anything else into other', () => {
    expect(errorCodeLabel('BAD_USER_INPUT')).toBe('BAD_USER_INPUT');
    expect(errorCodeLabel('GRAPHQL_VALIDATION_FAILED')).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(errorCodeLabel('x'.repeat(100))).toBe('other');
  });
});
