/**
 * docs/http-routes.md lists the official client's routes the service does not serve yet. The list
 * is computed here, from the client's own generated API classes (the operations of its
 * conversation, message, annotation, model and search classes) against the routes the router
 * mounts, and must equal the page's: a route served later, or a client release that adds one,
 * shows up as a failing test until the page says so.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { toOpenApiPath } from '../../adapters/hono/openapi.js';
import { serviceForTest } from '../helpers/service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = path.join(ROOT, 'docs/http-routes.md');
const SECTION = '## Client routes not served yet';
/** The client's classes the page compares, in the order it lists them. */
const CLASSES = [
  'ConversationsApi',
  'ConversationApi',
  'ConversationMessagesApi',
  'ConversationMessageApi',
  'AnnotationsApi',
  'AnnotationApi',
  'ModelsApi',
  'ModelApi',
  'SearchApi',
];

interface Operation {
  readonly api: string;
  readonly method: string;
  readonly path: string;
  readonly name: string;
}

const key = (op: Operation) => `${op.api} ${op.method} ${op.path} ${op.name}`;
/** `/conversation/{conversation}` and `/conversation/:conversation` alike: `/conversation/{}`. */
const shape = (method: string, route: string) => `${method.toUpperCase()} ${route.replace(/\{[^}]+\}/g, '{}')}`;

/** Every operation of each class, read from the client's generated `<Class>.js` (method and path of each `…Raw`). */
function clientOperations(): Operation[] {
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve('@pieces.app/pieces-os-client/package.json')), 'dist', 'apis');
  return CLASSES.flatMap((api) =>
    [
      ...readFileSync(path.join(dir, `${api}.js`), 'utf8').matchAll(
        /async (\w+)Raw\([^)]*\)\s*\{[^]*?path: `([^`]*)`[^]*?method: '(\w+)'/g,
      ),
    ].map((match) => ({ api, name: match[1]!, path: match[2]!, method: match[3]! })),
  );
}

/** The page's section: its totals sentence, each class's heading with its counts, and each route listed. */
function pageList(markdown: string) {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  expect(start, `docs/http-routes.md has "${SECTION}"`).toBeGreaterThan(-1);
  const rest = markdown.slice(start + SECTION.length + 2);
  const section = rest.slice(0, rest.search(/\n## |$/));
  const totals = /has (\d+) operations[^]*?serves (\d+) of them\.\s+These (\d+) are not served/.exec(section.replace(/\s+/g, ' '));
  const headings = new Map<string, { missing: number; of: number }>();
  const listed: Operation[] = [];
  let api = '';
  for (const line of section.split('\n')) {
    const heading = /^### (\w+): (\d+) of (\d+) not served$/.exec(line);
    if (heading) {
      api = heading[1]!;
      headings.set(api, { missing: Number(heading[2]), of: Number(heading[3]) });
      continue;
    }
    const item = /^- `(GET|POST|PUT|DELETE|PATCH) (\S+)` \(`(\w+)`\)$/.exec(line);
    if (item) listed.push({ api, method: item[1]!, path: item[2]!, name: item[3]! });
    else expect(line.startsWith('- '), `a list line the test cannot read: ${line}`).toBe(false);
  }
  return { totals: totals?.slice(1).map(Number), headings, listed };
}

describe("the page's list of client routes not served yet", () => {
  it('is exactly the client operations the router does not serve, grouped by class, with their counts', async () => {
    const { service } = await serviceForTest();
    const router = createHonoRouter(service);
    const served = new Set(router.routes.map((route) => shape(route.method, toOpenApiPath(route.path))));
    const all = clientOperations();
    // The client's classes were read (a change of its file layout would otherwise pass as "all served").
    expect(all.length).toBeGreaterThan(50);
    const unserved = all.filter((op) => !served.has(shape(op.method, op.path)));
    // Some of each are served: the comparison does match routes.
    expect(unserved.length).toBeLessThan(all.length);

    const page = pageList(readFileSync(PAGE, 'utf8'));
    expect(page.listed.map(key).sort()).toEqual(unserved.map(key).sort());
    expect(page.totals, 'the totals sentence: "has N operations … serves M of them. These K are not served"').toEqual([
      all.length,
      all.length - unserved.length,
      unserved.length,
    ]);
    expect(Object.fromEntries(page.headings)).toEqual(
      Object.fromEntries(
        CLASSES.map((api) => [
          api,
          { missing: unserved.filter((op) => op.api === api).length, of: all.filter((op) => op.api === api).length },
        ]),
      ),
    );
    await service.close();
  });
});
