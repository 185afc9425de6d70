/**
 * Every route of the official client's Conversation*, ConversationMessage*, Annotation* and Model*
 * classes (and its SearchApi) is answered by the router: no `No route for` 404. The routes are read
 * from the client's own generated classes at test time (method and path of each `…Raw`), so a
 * client release that adds one fails here. Left out on purpose: the SearchApi's three asset
 * searches (they search code snippets, not chats) and the four `/stream/identifiers` WebSockets
 * (not plain HTTP routes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routerForTest } from '../helpers/http.js';

/**
 * Routes another part of issue 28 adds (the links of messages and annotations, kept by the record-kind
 * registry): expected to answer `No route for` until it is merged. WHEN MERGING: empty this list (the
 * test fails while it names a route the router answers).
 */
const EXPECTED_MISSING_UNTIL_LINKS_MERGE: readonly string[] = [
  'POST /annotation/{annotation}/anchors/associate/{anchor}',
  'POST /annotation/{annotation}/anchors/disassociate/{anchor}',
  'POST /annotation/{annotation}/assets/associate/{asset}',
  'POST /annotation/{annotation}/assets/disassociate/{asset}',
  'POST /annotation/{annotation}/conversations/associate/{conversation}',
  'POST /annotation/{annotation}/conversations/disassociate/{conversation}',
  'POST /annotation/{annotation}/messages/associate/{message}',
  'POST /annotation/{annotation}/messages/disassociate/{message}',
  'POST /annotation/{annotation}/persons/associate/{person}',
  'POST /annotation/{annotation}/persons/disassociate/{person}',
  'POST /annotation/{annotation}/tags/associate/{tag}',
  'POST /annotation/{annotation}/tags/disassociate/{tag}',
  'POST /annotation/{annotation}/websites/associate/{website}',
  'POST /annotation/{annotation}/websites/disassociate/{website}',
  'POST /annotation/{annotation}/workstream_events/associate/{workstream_event}',
  'POST /annotation/{annotation}/workstream_events/disassociate/{workstream_event}',
  'POST /annotation/{annotation}/workstream_summaries/associate/{workstream_summary}',
  'POST /annotation/{annotation}/workstream_summaries/disassociate/{workstream_summary}',
  'POST /conversation/{conversation}/annotations/associate/{annotation}',
  'POST /conversation/{conversation}/annotations/disassociate/{annotation}',
  'POST /conversation/{conversation}/grounding/workstream_pattern_engine/sources/associate/{source}',
  'POST /conversation/{conversation}/grounding/workstream_pattern_engine/sources/disassociate/{source}',
  'POST /message/{message}/anchors/associate/{anchor}',
  'POST /message/{message}/anchors/disassociate/{anchor}',
  'POST /message/{message}/annotations/associate/{annotation}',
  'POST /message/{message}/annotations/disassociate/{annotation}',
  'POST /message/{message}/assets/associate/{asset}',
  'POST /message/{message}/assets/disassociate/{asset}',
  'POST /message/{message}/messages/associate/{additional_message}',
  'POST /message/{message}/messages/disassociate/{additional_message}',
  'POST /message/{message}/persons/associate/{person}',
  'POST /message/{message}/persons/disassociate/{person}',
  'POST /message/{message}/ranges/associate/{range}',
  'POST /message/{message}/ranges/disassociate/{range}',
  'POST /message/{message}/tags/associate/{tag}',
  'POST /message/{message}/tags/disassociate/{tag}',
  'POST /message/{message}/websites/associate/{website}',
  'POST /message/{message}/websites/disassociate/{website}',
  'POST /message/{message}/workstream_events/associate/{workstream_event}',
  'POST /message/{message}/workstream_events/disassociate/{workstream_event}',
  'POST /message/{message}/workstream_pattern_engine/sources/associate/{source}',
  'POST /message/{message}/workstream_pattern_engine/sources/disassociate/{source}',
  'POST /message/{message}/workstream_summaries/associate/{workstream_summary}',
  'POST /message/{message}/workstream_summaries/disassociate/{workstream_summary}',
];

/** Not HTTP routes of this service: the asset searches, and the change streams (WebSockets). */
const OUT_OF_SCOPE = (method: string, route: string) => route.startsWith('/search/') || route.endsWith('/stream/identifiers');

/** `METHOD /path/{param}` of every operation of the classes, read from the client's generated `<Class>.js`. */
function clientRoutes(): string[] {
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve('@pieces.app/pieces-os-client/package.json')), 'dist', 'apis');
  const classes = readdirSync(dir).filter((file) => /^(Conversation|ConversationMessage|Annotation|Model|Search)s?Api\.js$/.test(file));
  expect(classes.length).toBe(9);
  return classes.flatMap((file) =>
    [...readFileSync(path.join(dir, file), 'utf8').matchAll(/async \w+Raw\([^)]*\)\s*\{[^]*?path: `([^`]*)`[^]*?method: '(\w+)'/g)].map(
      (match) => `${match[2]!} ${match[1]!}`,
    ),
  );
}

describe("the official client's routes", () => {
  it('are every one answered by the router, but the asset searches and the streams', async () => {
    const { router, service } = await routerForTest();
    const routes = clientRoutes();
    expect(routes.length).toBe(106);
    const unrouted: string[] = [];
    for (const route of routes) {
      const [method, template] = route.split(' ') as [string, string];
      if (OUT_OF_SCOPE(method, template)) continue;
      const url = template.replace(/\{[^}]+\}/g, 'no-such-id');
      const init: RequestInit = method === 'POST' ? { method, headers: { 'content-type': 'application/json' }, body: '' } : { method };
      const answer = await router.request(url, init);
      const text = await answer.text();
      if (answer.status === 404 && text.includes('No route for')) unrouted.push(route);
    }
    expect(unrouted.sort()).toEqual([...EXPECTED_MISSING_UNTIL_LINKS_MERGE].sort());
    await service.close();
  });
});
