/**
 * What a durable write and a read cost the PostgreSQL store in round trips to the database: each
 * statement sent waits for its answer before the next (node-postgres does not pipeline), so on a
 * loaded server or a distant one the count is what sets a request's time. Counted on a pool that
 * passes every query on and tallies it.
 */
import pg from 'pg';
import { expect, it, onTestFinished } from 'vitest';
import type { Service } from '../../src/index.js';
import { createPostgresRepository, type PostgresClient, type PostgresPool, type PostgresQuery } from '../../src/stores/postgres/index.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';

/** A pool of `url` that counts the statements sent through it (and names them, to say which when a count is off). */
function countingPool(url: string) {
  const own = new pg.Pool({ connectionString: url });
  const pool = own as unknown as PostgresPool;
  const sent: string[] = [];
  const note = (query: string | PostgresQuery) =>
    sent.push((typeof query === 'string' ? query : query.text).replace(/\s+/g, ' ').trim().slice(0, 60));
  const counting: PostgresPool = {
    query: (query, values) => {
      note(query);
      return pool.query(query, values);
    },
    async connect() {
      const client = await pool.connect();
      return {
        query: (query, values) => {
          note(query);
          return client.query(query, values);
        },
        release: (error) => client.release(error),
        on: (event: 'error', listener: (error: Error) => void) => client.on(event, listener),
        off: (event: 'error', listener: (error: Error) => void) => client.off(event, listener),
      } as PostgresClient;
    },
    end: () => pool.end(),
  };
  return { pool: counting, sent, end: () => own.end() };
}

describeWithPostgres('PostgreSQL store round trips', (server) => {
  /** A service on a store whose statements are counted, with one conversation of two messages. */
  async function counted(follow: boolean): Promise<{ service: Service; sent: string[]; id: string }> {
    const counting = countingPool(server().url);
    const repository = await createPostgresRepository(
      { pool: counting.pool },
      { schema: freshSchema('trips'), logger: { warn: () => undefined } },
    );
    onTestFinished(async () => {
      await repository.close();
      await counting.end();
    });
    if (follow) repository.changes!.subscribe(() => undefined);
    const { service } = await serviceForTest({ repository });
    const conversation = await conversationWith(service, said('USER', 'how do I rotate a log file'), said('ASSISTANT', 'use logrotate'));
    // Warm: the notification of the last commit sent, the feed caught up.
    await repository.changes!.caughtUp();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { service, sent: counting.sent, id: conversation.id };
  }

  /** The statements `work` sends, once what it started in the background has settled. */
  async function statementsOf(sent: string[], work: () => Promise<unknown>): Promise<string[]> {
    const from = sent.length;
    await work();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return sent.slice(from);
  }

  it('appends a message in at most 7 round trips, the notification of the other instances included, when nothing follows the feed', async () => {
    const { service, sent, id } = await counted(false);
    const add = () =>
      service.createMessage({ role: 'USER', fragment: { string: { raw: 'and keep a week of them' } }, conversation: { id } });
    const trips = await statementsOf(sent, add);
    expect(trips.length, trips.join('\n')).toBeLessThanOrEqual(7);
  });

  it('reads a conversation in two round trips (its record, then its messages), and a cached answer in one', async () => {
    const { service, sent, id } = await counted(false);
    const first = await statementsOf(sent, () => service.getConversationJson(id));
    const again = await statementsOf(sent, () => service.getConversationJson(id));
    expect({ first: first.length, again: again.length }, [...first, '--', ...again].join('\n')).toEqual({ first: 2, again: 1 });
  });
});
