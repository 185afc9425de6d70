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
  async function service(repository?: Repository, prefix = '00000000'): Promise<Service> {
    let n = 0;
    const generateId = () => `${prefix}-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
    return (await serviceForTest({ generateId, ...(repository ? { repository } : {}) })).service;
  }

  /**
   * What the search tables of `schema` hold that disagrees with what the records make of them: the
   * documents against the records, each conversation's row and terms, and the counts, each derived
   * again from the rows they summarize. Empty when they agree.
   */
  async function disagreements(schema: string): Promise<string[]> {
    const s = `"${schema}"`;
    const { rows } = await adminPool().query(`
      WITH docs AS (
        SELECT 'docs of ' || collection || ' ' || id AS what FROM (
          (SELECT collection, id FROM ${s}.records WHERE collection IN ('messages', 'conversations', 'annotations')
           EXCEPT SELECT CASE WHEN field <= 1 THEN 'messages' WHEN field = 2 THEN 'conversations' ELSE 'annotations' END, id FROM ${s}.search_docs)
          UNION ALL
          (SELECT CASE WHEN field <= 1 THEN 'messages' WHEN field = 2 THEN 'conversations' ELSE 'annotations' END, id FROM ${s}.search_docs
           EXCEPT SELECT collection, id FROM ${s}.records)
        ) x
      ), conversations AS (
        SELECT 'conversation ' || c.id AS what FROM ${s}.search_conversations c
        LEFT JOIN LATERAL (
          SELECT count(*) AS docs, coalesce(sum(len) FILTER (WHERE field <= 1), 0) AS length, bool_or(field = 2) AS named
          FROM ${s}.search_docs d WHERE d.conv = c.num
        ) d ON true
        LEFT JOIN LATERAL (
          SELECT doc, len FROM ${s}.search_docs f WHERE f.conv = c.num AND f.field = 0 ORDER BY created, doc LIMIT 1
        ) f ON true
        WHERE (c.docs, c.length, c.named, c.first_len) IS DISTINCT FROM (d.docs::int, d.length::bigint, coalesce(d.named, false), coalesce(f.len, 0))
      ), derived AS (
        SELECT p.term, p.conv,
          sum(p.tf) FILTER (WHERE p.field = 2) AS n, sum(p.tf) FILTER (WHERE p.field = 3) AS a,
          sum(p.tf) FILTER (WHERE p.field <= 1 AND p.doc = c.first_doc) AS f,
          sum(p.tf) FILTER (WHERE p.field <= 1 AND p.doc IS DISTINCT FROM c.first_doc) AS b
        FROM ${s}.search_postings p JOIN ${s}.search_conversations c ON c.num = p.conv GROUP BY p.term, p.conv
      ), terms AS (
        SELECT 'terms ' || term AS what FROM (
          (SELECT term, conv, coalesce(n, 0)::int, coalesce(a, 0)::int, coalesce(f, 0)::int, coalesce(b, 0)::int FROM derived
           EXCEPT SELECT term, conv, name_tf, note_tf, first_tf, body_tf FROM ${s}.search_conversation_terms)
          UNION ALL
          (SELECT term, conv, name_tf, note_tf, first_tf, body_tf FROM ${s}.search_conversation_terms
           EXCEPT SELECT term, conv, coalesce(n, 0)::int, coalesce(a, 0)::int, coalesce(f, 0)::int, coalesce(b, 0)::int FROM derived)
        ) x
      ), counts AS (
        SELECT 'counts' AS what
        FROM (SELECT sum(docs) AS docs, sum(messages) AS messages, sum(message_len) AS len FROM ${s}.search_stats) st,
          (SELECT count(*) AS docs, count(*) FILTER (WHERE field <= 1) AS messages, coalesce(sum(len) FILTER (WHERE field <= 1), 0) AS len
           FROM ${s}.search_docs) d
        WHERE (st.docs, st.messages, st.len) IS DISTINCT FROM (d.docs::numeric, d.messages::numeric, d.len::numeric)
      )
      SELECT what FROM docs UNION ALL SELECT what FROM conversations UNION ALL SELECT what FROM terms UNION ALL SELECT what FROM counts`);
    return rows.map((row) => row.what as string);
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
      await conversationWith(
        s,
        said('USER', 'How do I paginate a GraphQL query?'),
        said('ASSISTANT', 'Use cursors, and paginate with first/after.'),
      );
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
      const docs = await conversationWith(
        s,
        said('USER', 'Where is the documentation for installing plugins? The docker docs say nothing.'),
      );
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
      const schema = freshSchema('search');
      const onPostgres = await service(await postgresStore(schema));
      const written = await write(embedded);
      // The same records, times aside: the trash's background purge reads the stepping clock once
      // soon after start, before or after the first write depending on I/O (the order of writes
      // is what search may depend on, and one clock keeps that).
      const untimed = (records: unknown) =>
        JSON.parse(JSON.stringify(records, (key, value) => (key === 'created' || key === 'updated' ? undefined : value)));
      expect(untimed(await write(onPostgres))).toEqual(untimed(written));
      const answers = async (s: Service) => {
        const found: unknown[] = [];
        for (const text of QUERIES) {
          const shape = (answer: {
            iterable: {
              identifier: string;
              similarity?: number;
              messages?: { iterable: { identifier: string }[] };
              annotations?: { iterable: { identifier: string }[] };
            }[];
          }) =>
            answer.iterable.map((hit) => ({
              id: hit.identifier,
              similarity: Number((hit.similarity ?? 0).toFixed(2)),
              messages: hit.messages?.iterable.map((m) => m.identifier),
              annotations: hit.annotations?.iterable.map((a) => a.identifier),
            }));
          found.push([text, shape(await s.searchMessages(query(text), { transferables: false }))]);
          found.push([text, shape(await s.searchConversations(query(text), { transferables: false }))]);
          found.push([text, shape(await s.searchConversationMessages(written.react.id, query(text), { transferables: false }))]);
          found.push([text, shape(await s.searchAnnotations(query(text), { transferables: false }))]);
        }
        return found;
      };
      const [got, wanted] = [await answers(onPostgres), await answers(embedded)];
      // The same records, in the same order, with the same messages and annotations shown.
      const withoutSimilarity = (found: unknown[]) =>
        JSON.parse(JSON.stringify(found, (key, value) => (key === 'similarity' ? undefined : value)));
      expect(withoutSimilarity(got)).toEqual(withoutSimilarity(wanted));
      // Similarities close: the embedded index counts the documents a write replaced in its idf until it merges them away.
      const similarities = (found: unknown[]) =>
        JSON.stringify(found)
          .match(/"similarity":[\d.]+/g)!
          .map((pair) => Number(pair.split(':')[1]));
      const [a, b] = [similarities(got), similarities(wanted)];
      expect(a.length).toBe(b.length);
      a.forEach((value, i) => expect(Math.abs(value - b[i]!)).toBeLessThanOrEqual(0.05));
      // Renames, a summary, a deletion: what the search tables hold still adds up.
      expect(await disagreements(schema)).toEqual([]);
    });
  });

  it('ranks a conversation by its next request once its first is deleted', async () => {
    const schema = freshSchema('search');
    const s = await service(await postgresStore(schema));
    const moved = await conversationWith(s, said('USER', 'kafka consumer lag grows'), said('USER', 'the helm chart fails to install'));
    const other = await conversationWith(
      s,
      said('USER', 'review my API'),
      said('ASSISTANT', 'The helm chart is fine, though install it with a values file, and pin the versions, and lint it.'),
    );
    const ranked = async () =>
      (await s.searchConversations(query('helm install'), { transferables: false })).iterable.map((hit) => hit.identifier);
    expect(new Set(await ranked())).toEqual(new Set([moved.id, other.id]));
    await s.deleteMessage(moved.messages.iterable[0]!.id);
    // Its second request is its first now: weighed as the request that names the chat.
    expect(await ranked()).toEqual([moved.id, other.id]);
    expect(await disagreements(schema)).toEqual([]);
  });

  it('holds nothing of a write rolled back, even once its search rows were written', async () => {
    const schema = freshSchema('search');
    const repository = await postgresStore(schema);
    const s = await service(repository);
    const kept = await conversationWith(s, said('USER', 'kubernetes pods restart in a loop'));
    // Fails the transaction after its search rows are written: at its log of changes, its last statement.
    await adminPool().query(`
      CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.collection = 'messages' THEN RAISE EXCEPTION 'refused for the test'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".changes FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse();`);
    await expect(conversationWith(s, said('USER', 'kubernetes ingress returns 502'))).rejects.toThrow('refused for the test');
    await expect(s.updateConversation({ id: kept.id, name: 'Ingress trouble' })).resolves.toBeDefined();
    await adminPool().query(`DROP TRIGGER refuse ON "${schema}".changes`);
    const found = await s.searchMessages(query('kubernetes'), { transferables: false });
    expect(found.iterable.map((hit) => hit.identifier)).toEqual([kept.messages.iterable[0]!.id]);
    expect((await s.searchMessages(query('ingress 502'), { transferables: false })).iterable).toEqual([]);
    expect(await disagreements(schema)).toEqual([]);
  });

  it("finds one instance's writes through another on the same schema at once, with no feed to wait for", async () => {
    const schema = freshSchema('search');
    const [a, b] = [await postgresStore(schema), await postgresStore(schema)];
    const [first, second] = [await service(a), await service(b, '00000001')];
    for (let round = 0; round < 3; round++) {
      const written = await conversationWith(first, said('USER', `deploy number ${round} failed with exit code 137`));
      // B's change feed is not asked: the search reads what is committed.
      const found = await second.searchConversations(query(`deploy ${round}`), { transferables: false });
      expect(found.iterable[0]!.identifier).toBe(written.id);
    }
    const renamed = (await first.listConversations()).iterable[0]!;
    await second.updateConversation({ id: renamed.id, name: 'Out of memory' });
    expect((await first.searchConversations(query('memory'), { transferables: false })).iterable.map((hit) => hit.identifier)).toEqual([
      renamed.id,
    ]);
    expect(await disagreements(schema)).toEqual([]);
  });

  it('indexes the records of a store made before search was in the database, when it is opened', async () => {
    const schema = freshSchema('search');
    const s = await service(await postgresStore(schema));
    const old = await conversationWith(s, said('USER', 'terraform plan shows drift'), said('ASSISTANT', 'Run terraform refresh first.'));
    await s.updateConversation({ id: old.id, name: 'Infrastructure drift' });
    // As a release before migration 3 left it: the records, and no search tables.
    const search = MIGRATIONS.find((migration) => migration.name === 'search')!;
    await adminPool().query(`
      DROP TABLE "${schema}".search_docs, "${schema}".search_postings, "${schema}".search_conversations,
        "${schema}".search_conversation_terms, "${schema}".search_stats;
      DROP SEQUENCE "${schema}".search_numbers;
      DELETE FROM "${schema}".migrations WHERE version = ${search.version};`);
    const reopened = await service(await postgresStore(schema));
    const found = await reopened.searchConversations(query('terraform drift'), { transferables: false });
    expect(found.iterable.map((hit) => hit.identifier)).toEqual([old.id]);
    expect(found.iterable[0]!.messages!.iterable.map((m) => m.identifier).sort()).toEqual(old.messages.iterable.map((m) => m.id).sort());
    expect(
      (await reopened.searchConversations(query('infrastructure'), { transferables: false })).iterable.map((hit) => hit.identifier),
    ).toEqual([old.id]);
    expect(await disagreements(schema)).toEqual([]);
  });
});
