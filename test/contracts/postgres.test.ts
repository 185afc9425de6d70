import pg from 'pg';
import { afterAll } from 'vitest';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { describeRepositoryContract } from '../../src/testing/index.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';

// Each test opens a store in a schema of its own on the file's server, migrated from nothing. The
// stores share one pool, passed in as a host application would pass its own: closing a store
// leaves it open (the store's own pool, from a connection string, is what the other tests use).
describeWithPostgres('PostgreSQL', (server) => {
  let pool: pg.Pool | undefined;
  afterAll(() => pool?.end());
  describeRepositoryContract('PostgreSQL', () => {
    pool ??= new pg.Pool({ connectionString: server().url });
    return createPostgresRepository({ pool }, { schema: freshSchema() });
  });
});
