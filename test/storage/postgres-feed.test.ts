/**
 * The PostgreSQL store's change feed across instances: two repositories (or services) on one
 * schema, as two processes behind a load balancer would be. The feed's single-instance contract
 * runs in test/contracts/postgres.test.ts.
 */
import pg from 'pg';
import { afterAll, expect, it, onTestFinished } from 'vitest';
import type { ChangeBatch, Repository } from '../../src/ports.js';
import { createPostgresRepository, type PostgresPool } from '../../src/stores/postgres/index.js';
import { conversationRecord } from '../../src/testing/records.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';

describeWithPostgres('PostgreSQL change feed across instances', (server) => {
  let admin: pg.Pool | undefined;
  afterAll(() => admin?.end());

  /** Two stores on one new schema, each with its own pool, closed after the test. */
  async function twoInstances(): Promise<[Repository, Repository]> {
    const schema = freshSchema('feed');
    const open = () => createPostgresRepository({ connectionString: server().url }, { schema, logger: { warn: () => undefined } });
    const pair: [Repository, Repository] = [await open(), await open()];
    onTestFinished(() => Promise.all(pair.map((repository) => repository.close())).then(() => undefined));
    return pair;
  }

  /** The ids of the batches `repository`'s feed delivers from now on. */
  async function follow(repository: Repository): Promise<string[][]> {
    const seen: string[][] = [];
    repository.changes!.subscribe((batch: ChangeBatch) => seen.push(batch.changes.map((change) => change.id)));
    await repository.changes!.caughtUp();
    return seen;
  }

  const until = async (done: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    return done();
  };

  it("delivers one instance's writes to the other: after caughtUp, and by itself on the notification", async () => {
    const [a, b] = await twoInstances();
    const seen = await follow(b);
    await a.transact((tx) => tx.put('conversations', conversationRecord('one', 'written by A')));
    await b.changes!.caughtUp();
    expect(seen).toEqual([['one']]);
    await a.transact((tx) => {
      tx.put('conversations', conversationRecord('two'));
      tx.put('conversations', conversationRecord('three'));
    });
    // Well within the safety poll's 5 s: the NOTIFY brought it.
    expect(await until(() => seen.length === 2, 2_000)).toBe(true);
    expect(seen[1]!.sort()).toEqual(['three', 'two']);
    // A rolled-back transaction of A delivers nothing to B.
    await expect(
      a.transact((tx) => {
        tx.put('conversations', conversationRecord('never'));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await b.changes!.caughtUp();
    expect(seen).toHaveLength(2);
  });

  it('reconnects after its listening connection is killed, and skips nothing written meanwhile', async () => {
    const [a, b] = await twoInstances();
    const seen = await follow(b);
    admin ??= new pg.Pool({ connectionString: server().url });
    const { rows } = await admin.query(
      "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE query LIKE 'LISTEN \"cms_changes_%' AND pid <> pg_backend_pid()",
    );
    expect(rows.length).toBeGreaterThan(0);
    await a.transact((tx) => tx.put('conversations', conversationRecord('while-down')));
    // Reconnected after 1 s, it polls from its position: delivered without a caughtUp.
    expect(await until(() => seen.length === 1, 4_000)).toBe(true);
    await a.transact((tx) => tx.put('conversations', conversationRecord('after')));
    expect(await until(() => seen.length === 2, 2_000)).toBe(true);
    expect(seen).toEqual([['while-down'], ['after']]);
  });

  it('delivers a write another instance commits right after subscribe, before the feed has asked the database anything', async () => {
    const schema = freshSchema('feed');
    // A's queries wait while `slow` is set, as behind a slow network: the feed's first question
    // to the database is answered only after B committed.
    const poolA = new pg.Pool({ connectionString: server().url });
    let slow: Promise<void> | undefined;
    const slowPool = {
      query: async (...args: Parameters<pg.Pool['query']>) => {
        await slow;
        return poolA.query(...args);
      },
      connect: () => poolA.connect(),
      end: () => poolA.end(),
    } as unknown as PostgresPool;
    const a = await createPostgresRepository({ pool: slowPool }, { schema, logger: { warn: () => undefined } });
    const b = await createPostgresRepository({ connectionString: server().url }, { schema, logger: { warn: () => undefined } });
    onTestFinished(async () => {
      await Promise.all([a.close(), b.close()]);
      await poolA.end();
    });
    await a.read((view) => view.get('conversations', 'none'));
    let answer!: () => void;
    slow = new Promise((resolve) => (answer = resolve));
    const seen: string[] = [];
    a.changes!.subscribe((batch) => seen.push(...batch.changes.map((change) => change.id)));
    await b.transact((tx) => tx.put('conversations', conversationRecord('right-after', 'committed after A subscribed')));
    answer();
    await a.changes!.caughtUp();
    expect(seen).toEqual(['right-after']);
  });

  it('never delivers an older state of a record than one delivered before, while both instances write it', async () => {
    const [a, b] = await twoInstances();
    const counted: number[] = [];
    a.changes!.subscribe((batch) => {
      for (const change of batch.changes) if (change.id === 'counter') counted.push((change.record as Counter).score.manual);
    });
    await a.changes!.caughtUp();
    await a.transact((tx) => tx.put('conversations', counter(0)));
    // Each instance's own batches carry the counter as it left it; the other's come read back by
    // polls, which may see a later state: interleaved, every delivery is at least the last one.
    const increment = (repository: Repository) =>
      repository.transact(async (tx) => {
        const current = (await tx.get('conversations', 'counter')) as Counter;
        tx.put('conversations', counter(current.score.manual + 1));
      });
    const each = 24;
    const writers = (repository: Repository) =>
      Promise.all(
        Array.from({ length: 3 }, async () => {
          for (let i = 0; i < each / 3; i++) await increment(repository);
        }),
      );
    await Promise.all([writers(a), writers(b)]);
    await a.changes!.caughtUp();
    expect(counted).toEqual([...counted].sort((x, y) => x - y));
    expect(counted.at(-1)).toBe(2 * each);
  });

  it("finds the other service's writes by search as soon as they are acknowledged", async () => {
    const [a, b] = await twoInstances();
    const { service: first } = await serviceForTest({ repository: a });
    const { service: second } = await serviceForTest({ repository: b });
    const query = (text: string) => ({ engines: { iterable: [{ query: text }] } });
    // Both indexes built (empty) before the writes: they must follow the feed.
    expect((await first.searchConversations(query('kubernetes'))).iterable).toEqual([]);
    expect((await second.searchConversations(query('postgres'))).iterable).toEqual([]);
    const viaFirst = await conversationWith(first, said('USER', 'my kubernetes pod restarts in a loop'));
    const viaSecond = await conversationWith(second, said('USER', 'postgres refuses the connection on port 5432'));
    expect((await second.searchConversations(query('kubernetes'))).iterable.map((hit) => hit.identifier)).toEqual([viaFirst.id]);
    expect((await first.searchConversations(query('postgres'))).iterable.map((hit) => hit.identifier)).toEqual([viaSecond.id]);
  });
});

type Counter = ReturnType<typeof counter>;

const counter = (value: number) => ({ ...conversationRecord('counter'), score: { manual: value, automatic: 0 } });
