/**
 * Which database failures the PostgreSQL store reports as the database's (STORE_UNAVAILABLE, 503;
 * a full disk INSUFFICIENT_STORAGE, 507) rather than as a bug (500): the error objects are shaped
 * as node-postgres and Node make them. test/storage/postgres.test.ts meets one on a real server.
 */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/errors.js';
import { asStoreError } from '../../src/stores/postgres/database-errors.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('asStoreError', () => {
  it.each([
    ['a statement timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['a server shutting down', withCode('57P01', 'terminating connection due to administrator command')],
    ['too many connections', withCode('53300', 'sorry, too many clients already')],
    ['a lost connection (SQLSTATE 08006)', withCode('08006')],
    ['a deadlock that outlasted its retries', withCode('40P01', 'deadlock detected')],
    ['an idle transaction past its bound', withCode('25P03')],
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a connection ended by the server', new Error('Connection terminated unexpectedly')],
    ['the pool waiting past its bound', new Error('timeout exceeded when trying to connect')],
    ['an answer past its bound', new Error('Query read timeout')],
  ])('reports %s as STORE_UNAVAILABLE, naming the schema and keeping the cause', (_, error) => {
    const reported = asStoreError(error, 'app') as ServiceError;
    expect(reported).toBeInstanceOf(ServiceError);
    expect(reported.code).toBe('STORE_UNAVAILABLE');
    expect(reported.message).toContain('schema "app"');
    expect(reported.message).toContain(error.message);
    expect(reported.cause).toBe(error);
  });

  it("reports the server's full disk as INSUFFICIENT_STORAGE", () => {
    expect(asStoreError(withCode('53100', 'could not extend file'), 'app')).toMatchObject({ code: 'INSUFFICIENT_STORAGE' });
  });

  it("leaves the service's own errors, malformed SQL and other bugs as they are", () => {
    const own = new ServiceError('NOT_FOUND', 'No conversation has the id "x".');
    const syntax = withCode('42601', 'syntax error at or near "SELEC"');
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    for (const error of [own, syntax, bug]) expect(asStoreError(error, 'app')).toBe(error);
  });
});
