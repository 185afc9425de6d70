/**
 * Migration 3 on a store written before it (records, no search tables), opened by two instances at
 * once while a third connection holds the migrations' lock (as an instance migrating would): each
 * says in one line whom it waits for, both come up once the lock is free, exactly one indexes the
 * records and says how many and how fast, and a search through either finds every record.
 */
import pg from 'pg';
import { afterAll, expect, it, onTestFinished } from 'vitest';
import type { SearchInput, Service } from '../../src/index.js';
import type { Repository } from '../../src/ports.js';
import { createPostgresRepository, MIGRATIONS } from '../../src/stores/postgres/index.js';
import { lockName } from '../../src/stores/postgres/statements.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';

const query = (text: string): SearchInput => ({ engines: { iterable: [{ query: text }] } });
const CONVERSATIONS = 12;
const MESSAGES = 3;
/** A word of letters only, one per conversation (digits would be terms of their own). */
const wordOf = (i: number) => `zorbal${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;

/** Resolves once `condition` holds, checked every 20 ms; fails after `ms`. */
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeWithPostgres('A store made before migration 3, opened by two instances at once', (server) => {
  let admin: pg.Pool | undefined;
  const adminPool = () => (admin ??= new pg.Pool({ connectionString: server().url }));
  afterAll(() => admin?.end());

  async function open(schema: string, log: string[], warnings: string[]): Promise<Repository> {
    const repository = await createPostgresRepository(
      { connectionString: server().url },
      { schema, logger: { info: (message) => log.push(message), warn: (message) => warnings.push(message) } },
    );
    onTestFinished(() => repository.close());
    return repository;
  }

  const service = async (repository: Repository): Promise<Service> => (await serviceForTest({ repository })).service;

  /** A store of `schema` as a release before migration 3 left it (records, no search tables); answers what it holds. */
  async function storeOfMigration2(schema: string): Promise<{ word: string; messages: string[] }[]> {
    const writer = await createPostgresRepository({ connectionString: server().url }, { schema, logger: { warn: () => undefined } });
    const written: { word: string; messages: string[] }[] = [];
    try {
      const s = await service(writer);
      for (let i = 0; i < CONVERSATIONS; i++) {
        const word = wordOf(i);
        const messages = Array.from({ length: MESSAGES }, (_, m) =>
          said(m % 2 ? 'ASSISTANT' : 'USER', `message ${m} about ${word} and deploys`),
        );
        const conversation = await conversationWith(s, ...messages);
        written.push({ word, messages: conversation.messages.iterable.map((message) => message.id) });
      }
    } finally {
      await writer.close();
    }
    // As a release before migration 3 left it: the records, and no search tables.
    const search = MIGRATIONS.find((migration) => migration.name === 'search')!;
    const { rows: made } = await adminPool().query(
      `SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relname LIKE 'search\\_%' AND c.relkind IN ('r', 'S')`,
      [schema],
    );
    for (const { relname, relkind } of made as { relname: string; relkind: string }[])
      await adminPool().query(`DROP ${relkind === 'S' ? 'SEQUENCE' : 'TABLE'} IF EXISTS "${schema}"."${relname}" CASCADE`);
    await adminPool().query(`DELETE FROM "${schema}".migrations WHERE version = $1`, [search.version]);
    return written;
  }

  /** Every message found, by its conversation's word, through each of `repositories`. */
  async function expectAllFound(repositories: Repository[], written: { word: string; messages: string[] }[]): Promise<void> {
    for (const repository of repositories) {
      const s = await service(repository);
      for (const { word, messages } of written) {
        const found = await s.searchMessages(query(word), { transferables: false });
        expect(found.iterable.map((hit) => hit.identifier).sort()).toEqual([...messages].sort());
      }
    }
  }

  it('waits visibly for the instance that migrates, then both find every record', async () => {
    const schema = freshSchema('backfill');
    const written = await storeOfMigration2(schema);
    const records = CONVERSATIONS * (MESSAGES + 1);

    // The lock, held as an instance migrating holds it.
    const holder = new pg.Client({ connectionString: server().url, application_name: 'backfill-test-holder' });
    await holder.connect();
    onTestFinished(() => holder.end());
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(hashtext($1), -1)', [lockName(schema)]);
    const { rows: me } = await holder.query('SELECT pg_backend_pid() AS pid');
    const holderPid = (me[0] as { pid: number }).pid;

    const logs: [string[], string[]] = [[], []];
    const warnings: string[] = [];
    const opening = logs.map((log) => open(schema, log, warnings));
    // Neither comes up while the lock is held, and each says whom it waits for, once.
    await until(() => logs.every((log) => log.length > 0), 'both instances saying they wait');
    for (const log of logs) {
      expect(log).toEqual([
        expect.stringMatching(
          new RegExp(
            `^PostgreSQL schema "${schema}" is being migrated by another connection \\(server process ${holderPid}, from [0-9.:a-f]+, "backfill-test-holder", for \\d+ s so far\\): waiting for it before starting\\.$`,
          ),
        ),
      ]);
    }
    await holder.query('COMMIT');
    const [a, b] = await Promise.all(opening);
    expect(warnings).toEqual([]);

    // One of them ran the migration, and said what it did and how fast; the other found it done.
    const migrated = logs.filter((log) => log.some((line) => line.includes('goes through')));
    expect(migrated).toHaveLength(1);
    expect(migrated[0]!.slice(1)).toEqual([
      expect.stringMatching(/the other connection's migration ended after \d+\.\d s of waiting \(the schema is at migration 2\)/),
      `PostgreSQL schema "${schema}": migration 3 (search) goes through the ${records} records stored, in one transaction; instances starting meanwhile wait for it.`,
      expect.stringMatching(
        new RegExp(
          `^PostgreSQL schema "${schema}": migration 3 went through ${records} records in \\d+\\.\\d s \\(\\d[\\d,]* records/s\\)\\.$`,
        ),
      ),
    ]);
    const other = logs.find((log) => log !== migrated[0])!;
    expect(other.slice(1)).toEqual([
      expect.stringMatching(/the other connection's migration is done after \d+\.\d s of waiting \(the schema is at migration 3\)/),
    ]);

    // Every message found, by its conversation's word, through either instance.
    await expectAllFound([a!, b!], written);
  });

  it('keeps nothing of a migration whose connection is cut midway, and the next start runs it again', async () => {
    const schema = freshSchema('backfill');
    const written = await storeOfMigration2(schema);
    // The records held, so that the migration stops inside its transaction (its tables made, no record read yet).
    const blocker = new pg.Client({ connectionString: server().url });
    await blocker.connect();
    onTestFinished(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE "${schema}".records IN ACCESS EXCLUSIVE MODE`);
    const opening = open(schema, [], []).then(
      () => 'opened',
      (error: Error) => error.message,
    );
    let stuck: number | undefined;
    const deadline = Date.now() + 10_000;
    while (stuck === undefined) {
      if (Date.now() > deadline) throw new Error('The migration did not come to wait on the records within 10 s.');
      const { rows } = await adminPool().query(`SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [
        `%count(*)%"${schema}".records%`,
      ]);
      stuck = (rows[0] as { pid: number } | undefined)?.pid;
      if (stuck === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await adminPool().query('SELECT pg_terminate_backend($1)', [stuck]);
    await blocker.query('COMMIT');
    expect(await opening).toMatch(/terminat/);
    // As it was: migration 2, no search table.
    const { rows } = await adminPool().query(
      `SELECT (SELECT max(version) FROM "${schema}".migrations) AS version, to_regclass($1) AS docs`,
      [`"${schema}".search_docs`],
    );
    expect(rows[0]).toEqual({ version: 2, docs: null });

    const log: string[] = [];
    const reopened = await open(schema, log, []);
    expect(log).toEqual([expect.stringContaining('goes through the'), expect.stringContaining('went through')]);
    await expectAllFound([reopened], written);
  });
});
