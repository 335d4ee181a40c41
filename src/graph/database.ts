import neo4j, { Driver, ManagedTransaction, QueryResult, RecordShape } from 'neo4j-driver';
import type { DatabaseClientConfig } from '../config';
import { mapNeo4jError } from './neo4j-errors';

/** Where and how to connect; resolved from config by connection.ts. */
export interface ConnectionTarget {
  uri: string;
  user: string;
  password: string;
  database: string;
}

export type Work<T> = (tx: ManagedTransaction) => Promise<T>;

/**
 * The one boundary to Neo4j: owns the driver, runs managed transactions (the driver retries
 * transient errors up to `maxRetrySeconds`) and maps every Neo4j error to a KgcError.
 */
export class Database {
  private readonly driver: Driver;

  constructor(
    readonly target: ConnectionTarget,
    client: DatabaseClientConfig,
  ) {
    this.driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password), {
      maxTransactionRetryTime: client.maxRetrySeconds * 1000,
      connectionTimeout: client.connectTimeoutMs,
      connectionAcquisitionTimeout: client.connectTimeoutMs * 2,
      disableLosslessIntegers: true,
      userAgent: 'kgc/0.1',
    });
  }

  get databaseName(): string {
    return this.target.database;
  }

  async read<T>(work: Work<T>): Promise<T> {
    const session = this.driver.session({
      database: this.target.database,
      defaultAccessMode: neo4j.session.READ,
    });
    try {
      return await session.executeRead(work);
    } catch (error) {
      throw mapNeo4jError(error, this.target.uri);
    } finally {
      await session.close();
    }
  }

  async write<T>(work: Work<T>): Promise<T> {
    const session = this.driver.session({ database: this.target.database });
    try {
      return await session.executeWrite(work);
    } catch (error) {
      throw mapNeo4jError(error, this.target.uri);
    } finally {
      await session.close();
    }
  }

  /**
   * One auto-commit query: for schema statements (which cannot share a transaction with data
   * writes) and `CALL { } IN TRANSACTIONS`. Not retried.
   */
  async autoCommit<R extends RecordShape = RecordShape>(
    query: string,
    params: Record<string, unknown> = {},
  ): Promise<QueryResult<R>> {
    const session = this.driver.session({ database: this.target.database });
    try {
      return await session.run<R>(query, params);
    } catch (error) {
      throw mapNeo4jError(error, this.target.uri);
    } finally {
      await session.close();
    }
  }

  /** Raw session access for streaming reads (export); the caller must close it. */
  openSession(mode: 'READ' | 'WRITE', fetchSize?: number) {
    return this.driver.session({
      database: this.target.database,
      defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE,
      fetchSize,
    });
  }

  /** A real `RETURN 1` against the database. */
  async ping(): Promise<void> {
    await this.read((tx) => tx.run('RETURN 1 AS ok'));
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}
