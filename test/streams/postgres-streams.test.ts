/**
 * The change streams across instances: two services on one PostgreSQL schema, each with its own
 * HTTP server, as two processes behind a load balancer. A subscriber connected to B reads the
 * create, update and delete written through A, in order, each within a second (B's store learns
 * of A's commits by NOTIFY).
 */
import { expect, it, onTestFinished } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../../adapters/hono/serve.js';
import { createService, type Service } from '../../src/index.js';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { expectCreateUpdateDelete, idsOf, openStream } from '../helpers/stream-client.js';

describeWithPostgres('change streams across instances on PostgreSQL', (postgres) => {
  async function instance(schema: string): Promise<{ service: Service; server: RunningHttpServer }> {
    const repository = await createPostgresRepository({ connectionString: postgres().url }, { schema, logger: { warn: () => undefined } });
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    const server = await startHttpServer(service, { port: 0, shutdownGraceMs: 100 });
    onTestFinished(async () => {
      await server.close();
      await service.close();
    });
    return { service, server };
  }

  it('sends a subscriber of B the create, update and delete written through A, in order, each within a second', async () => {
    const schema = freshSchema('streams');
    const a = await instance(schema);
    const b = await instance(schema);
    const before = await a.service.createConversation({ type: 'COPILOT', name: 'There before' });
    const stream = await openStream(`${b.server.url.replace(/^http/, 'ws')}/conversations/stream/identifiers`);
    expect(idsOf(await stream.next())).toEqual([before.id]);

    await expectCreateUpdateDelete(a.server.url, stream);

    // And B's in-process readers see A's writes the same way.
    const watched = b.service.watch('conversations');
    expect(idsOf((await watched.next()).value!)).toEqual([before.id]);
    await a.service.deleteConversation(before.id);
    expect(idsOf((await watched.next()).value!)).toEqual([`-${before.id}`]);
    await watched.return();
  });
});
