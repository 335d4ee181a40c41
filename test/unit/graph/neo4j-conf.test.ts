import { renderNeo4jConf } from '../../../src/graph/local/neo4j-conf';

describe('renderNeo4jConf', () => {
  const conf = renderNeo4jConf({
    dir: '/var/kgc/i1',
    boltPort: 7999,
    heap: '1g',
    pageCache: '512m',
  });

  it('listens on loopback only, with HTTP off and auth on', () => {
    expect(conf).toContain('server.bolt.listen_address=127.0.0.1:7999');
    expect(conf).toContain('server.default_listen_address=127.0.0.1');
    expect(conf).toContain('server.http.enabled=false');
    expect(conf).toContain('dbms.security.auth_enabled=true');
  });

  it('keeps data and logs inside the instance folder', () => {
    expect(conf).toContain('server.directories.data=/var/kgc/i1/data');
    expect(conf).toContain('server.directories.logs=/var/kgc/i1/logs');
    expect(conf).toContain(
      'server.directories.transaction.logs.root=/var/kgc/i1/data/transactions',
    );
  });
});
