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
    expect(unrouted.sort()).toEqual([]);
    await service.close();
  });
});
