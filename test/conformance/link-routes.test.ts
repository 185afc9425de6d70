/**
 * Every link route of the link table (src/links.ts), driven by the official client
 * (`@pieces.app/pieces-os-client` 4.1.0, unmodified) from both sides where the client has both,
 * over a JSON-file store: after associate both records name each other (stored, and in the answers
 * a client reads), after disassociate neither does. Then each kind of record is linked to every
 * kind it can be, deleted, and no stored id names it any more. The client reaches the router
 * in-process (its `fetchApi`), so no port is opened.
 */
import * as client from '@pieces.app/pieces-os-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { createJsonFileRepository, createService, type Repository, type Service } from '../../src/index.js';
import type { Link, LinkableName, LinkRoute } from '../../src/links.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { createOf, danglingIds, deleteOf, idsAt, LINKABLE, LINKED_KINDS, wireIds } from '../helpers/links.js';
import { steppingClock } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The client's API classes that hold link operations. */
const API_CLASSES = [
  client.ConversationApi,
  client.ConversationMessageApi,
  client.AnnotationApi,
  client.AnchorApi,
  client.AssetApi,
  client.WebsiteApi,
  client.RangeApi,
  client.WorkstreamSummaryApi,
  client.TagApi,
  client.PersonApi,
  client.WorkstreamEventApi,
  client.WorkstreamPatternEngineSourceApi,
];

let repository: Repository;
let service: Service;
let apis: Record<string, unknown>[];

beforeAll(async () => {
  const folder = await tempDir('cms-link-routes-');
  repository = await createJsonFileRepository({ file: `${folder}/db.json` });
  service = await createService({ repository, summarizer: createFakeSummarizer(), clock: steppingClock() });
  const router = createHonoRouter(service);
  const configuration = new client.Configuration({
    basePath: 'http://127.0.0.1',
    fetchApi: (url: string | URL | Request, init?: RequestInit) => router.request(String(url), init),
  });
  apis = API_CLASSES.map((Api) => new Api(configuration) as unknown as Record<string, unknown>);
});
afterAll(() => service?.close());

/** The client's method named `operation`, bound to its API object. */
function clientMethod(operation: string): (parameters: Record<string, string>) => Promise<void> {
  const api = apis.find((candidate) => typeof candidate[operation] === 'function');
  if (!api) throw new Error(`The client has no operation ${operation}`);
  return (api[operation] as (parameters: Record<string, string>) => Promise<void>).bind(api);
}

/** `workstream_event` → `workstreamEvent`: the client's name of a path parameter. */
const camel = (name: string) => name.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase());

/** Each route of the table: its link, the side it is written from, and the route. */
const ROUTES = LINKABLE.flatMap(([name, link]) =>
  (['a', 'b'] as const).flatMap((side) => (link.routes?.[side] ?? []).map((route) => ({ name, link, side, route }))),
);

/** Whether each side names the other, stored and where the client reads it. */
async function sides(link: Link, a: string, b: string) {
  // A message's annotations are derived (never stored on the message): read them as answered.
  const aAnswered = (await wireIds(service, link.coverage ? { ...link.a, wire: 'annotations' } : link.a, a))?.includes(b);
  return {
    a: link.coverage ? aAnswered : (await idsAt(repository, link.a, a)).includes(b),
    b: (await idsAt(repository, link.b, b)).includes(a),
    aAnswered,
    bAnswered: (await wireIds(service, link.b, b))?.includes(a),
  };
}

describe('link routes, through the official client, on the JSON-file store', () => {
  it('the table has a route for each MISSING associate route of the issue, and more', () => {
    const paths = ROUTES.map(({ route }) => route.path);
    expect(paths.filter((p) => p.startsWith('/message/'))).toHaveLength(11);
    expect(paths.filter((p) => p.startsWith('/annotation/'))).toHaveLength(9);
    expect(paths).toContain('/conversation/{conversation}/annotations/{verb}/{annotation}');
    expect(paths).toContain('/conversation/{conversation}/grounding/workstream_pattern_engine/sources/{verb}/{source}');
  });

  it.each(ROUTES.map((entry) => [entry.route.path, entry] as const))('%s', async (_path, { name, link, side, route }) => {
    const a = await createOf(service, link.a.collection);
    const b = await createOf(service, link.b.collection);
    const [first, second] = /\{(\w+)\}\/.*\{verb\}\/\{(\w+)\}$/.exec(route.path)!.slice(1) as [string, string];
    const [own, other] = side === 'a' ? [a, b] : [b, a];
    const parameters = { [camel(first)]: own, [camel(second)]: other };
    const unlinked = await sides(link, a, b);
    expect(unlinked).toMatchObject({ a: false, b: false });

    await clientMethod(route.operation)(parameters);
    const linked = await sides(link, a, b);
    expect(linked, name).toMatchObject({ a: true, b: true });
    if (linked.aAnswered !== undefined) expect(linked.aAnswered, `${name}: side a's answer`).toBe(true);
    if (linked.bAnswered !== undefined) expect(linked.bAnswered, `${name}: side b's answer`).toBe(true);
    // Associating again links once.
    await clientMethod(route.operation)(parameters);
    expect((await idsAt(repository, link.b, b)).filter((id) => id === a)).toHaveLength(1);

    await clientMethod(disassociateOf(route))(parameters);
    expect(await sides(link, a, b), name).toEqual(unlinked);
  });

  it('answers 404 through the client for a record that does not exist, and links nothing', async () => {
    const message = await createOf(service, 'messages');
    const call = clientMethod('conversationMessageAssociateTag')({ message, tag: 'ghost' });
    await expect(call).rejects.toMatchObject({ response: { status: 404 } });
    expect(await idsAt(repository, { collection: 'messages', field: 'tags', many: true }, message)).toEqual([]);
  });
});

describe('deleting a record of each kind leaves no id naming it', () => {
  it.each(LINKED_KINDS)('%s', async (collection) => {
    const id = await createOf(service, collection);
    // Linked to a record of every kind it links to, from whichever side it is on.
    for (const [name, link] of LINKABLE) {
      for (const side of ['a', 'b'] as const) {
        if (link[side].collection !== collection) continue;
        // A message an annotation covers is one of the annotation's conversation.
        const conversation = link.coverage ? (await repository.read((view) => view.get('annotations', id)))?.conversation : undefined;
        const other = conversation
          ? (await service.createMessage({ conversation: { id: conversation }, role: 'USER', fragment: { string: { raw: 'covered' } } })).id
          : await createOf(service, link[side === 'a' ? 'b' : 'a'].collection);
        if (other === id) continue;
        await service.associate(name as LinkableName, side === 'a' ? id : other, side === 'a' ? other : id);
      }
    }
    await deleteOf(service, collection, id);
    expect(await danglingIds(repository)).toEqual([]);
  });
});

/** The client's disassociate operation of a route. */
const disassociateOf = (route: LinkRoute) => route.operation.replace('Associate', 'Disassociate');
