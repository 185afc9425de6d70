/**
 * The bounds of a pool the PostgreSQL store makes from a connection string: a database that stops
 * answering fails a request within them instead of holding it forever, and an operator may set
 * each one in the URL. (A black-holed database through `serve`, and a statement stuck behind a
 * lock, run against real servers in test/cli/postgres-store.test.ts and test/storage/postgres.test.ts.)
 */
import { expect, it } from 'vitest';
import { poolBounds } from '../../src/stores/postgres/pool.js';

it('bounds connecting by 10 s, a statement by 30 s, an idle transaction by 60 s, and an answer by 40 s by default', () => {
  expect(poolBounds('postgres://me@db.example:5432/app')).toEqual({
    connectMs: 10_000,
    statementMs: 30_000,
    idleInTransactionMs: 60_000,
    queryMs: 40_000,
  });
});

it("takes the URL's own: connect_timeout in seconds as libpq reads it, the others in milliseconds; 0 waits without end", () => {
  expect(poolBounds('postgres://me@db/app?sslmode=require&connect_timeout=2.5&statement_timeout=120000')).toEqual({
    connectMs: 2_500,
    statementMs: 120_000,
    idleInTransactionMs: 60_000,
    // Past the server's own bound, which cancels the statement first.
    queryMs: 130_000,
  });
  expect(poolBounds('postgres://me@db/app?statement_timeout=0&idle_in_transaction_session_timeout=0')).toMatchObject({
    statementMs: 0,
    idleInTransactionMs: 0,
    queryMs: 0,
  });
  // What is not a number leaves the default in place.
  expect(poolBounds('postgres://me@db/app?connect_timeout=soon&statement_timeout=-1')).toMatchObject({
    connectMs: 10_000,
    statementMs: 30_000,
  });
});
