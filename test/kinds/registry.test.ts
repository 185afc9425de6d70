/**
 * The kinds' registry (src/kinds/index.ts) and the link table (src/links.ts) are what the rest
 * derives from. The compiler already refuses a kind filed under another collection's name, a
 * collection left out of a table keyed by collection (`satisfies`/mapped types: the stored-record
 * checks, `sampleRecord`, the adapter's seeds), and a kind's route naming a service method, answer
 * or seed schema that does not exist. What it cannot see is checked here: a kind file that is not
 * in the registry at all, and names that are strings (a kind's conversation link, a route's
 * parameters).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECORD_ROUTES } from '../../adapters/hono/routes.js';
import { COLLECTION_NAMES } from '../../src/index.js';
import { KINDS } from '../../src/kinds/index.js';
import { LINK, type Link } from '../../src/links.js';
import { messageHasLinks, wireListsOf } from '../../src/render/links.js';
import { LIST_FIELDS } from '../../src/stores/postgres/list-fields.js';
import { messageRecord } from '../../src/testing/records.js';

const KINDS_DIR = path.resolve(import.meta.dirname, '../../src/kinds');

describe('the registry of record kinds', () => {
  it('holds every kind declared in src/kinds/, each under its own collection', async () => {
    const files = (await readdir(KINDS_DIR)).filter((name) => name.endsWith('.ts') && !['index.ts', 'kind.ts'].includes(name));
    const registered = new Set<unknown>(Object.values(KINDS));
    for (const file of files) {
      const module = (await import(path.join(KINDS_DIR, file))) as Record<string, unknown>;
      const declared = Object.values(module).filter((value) => typeof value === 'object' && value !== null && 'collection' in value);
      expect(declared, `${file} declares one kind`).toHaveLength(1);
      expect(registered.has(declared[0]), `${file}'s kind is in KINDS`).toBe(true);
    }
    expect(files).toHaveLength(Object.keys(KINDS).length);
    for (const [collection, kind] of Object.entries(KINDS)) expect(kind.collection).toBe(collection);
    // New kinds go at the end: the PostgreSQL store numbers its per-collection locks by this order.
    expect(COLLECTION_NAMES.slice(0, 9)).toEqual([
      'conversations',
      'messages',
      'annotations',
      'anchors',
      'assets',
      'websites',
      'workstreamSummaries',
      'ranges',
      'models',
    ]);
  });

  it('names, for each kind created in a conversation, a link from conversations to that kind', () => {
    for (const kind of Object.values(KINDS)) {
      const name = 'records' in kind ? kind.records?.conversationLink : undefined;
      if (name === undefined) continue;
      const link = (LINK as Record<string, Link>)[name];
      expect(link, `${kind.collection}: ${name}`).toBeDefined();
      expect([link!.a.collection, link!.b.collection]).toEqual(['conversations', kind.collection]);
    }
  });

  it('gives every kind with routes its create, list and delete routes', () => {
    const routed = Object.values(KINDS)
      .filter((kind) => 'routes' in kind && kind.routes)
      .map((kind) => kind.collection);
    expect(Object.keys(RECORD_ROUTES).sort()).toEqual(routed.sort());
  });
});

describe('the link table', () => {
  const links = Object.entries(LINK) as [string, Link][];

  it("writes each route from its side's record to the other's, as the client names them", () => {
    const paramOf = (collection: keyof typeof KINDS) => {
      const kind = KINDS[collection];
      return 'routes' in kind && kind.routes ? kind.routes.one.split('/').pop()! : kind.collection.replace(/s$/, '');
    };
    for (const [name, link] of links) {
      for (const side of ['a', 'b'] as const) {
        for (const route of link.routes?.[side] ?? []) {
          const [, own, other] = /^\/[\w/]+\/\{(\w+)\}\/.*\{verb\}\/\{(\w+)\}$/.exec(route.path) ?? [];
          expect(own, `${name}: ${route.path}`).toBe(paramOf(link[side].collection));
          const target = paramOf(link[side === 'a' ? 'b' : 'a'].collection);
          // The client's one exception: a message's other messages are `additional_message`.
          expect([target, `additional_${target}`], `${name}: ${route.path}`).toContain(other);
        }
      }
    }
  });

  it("sees each of a message's link lists on the renderers' fast path (messageHasLinks)", () => {
    expect(messageHasLinks(messageRecord('m', 'c'))).toBe(false);
    for (const { field } of wireListsOf('messages')) {
      expect(messageHasLinks({ ...messageRecord('m', 'c'), [field]: ['x'] }), field).toBe(true);
    }
  });

  it('stores every list of a link as rows on PostgreSQL (LIST_FIELDS derives from the table)', () => {
    for (const [name, link] of links) {
      for (const end of [link.a, link.b]) {
        if (!end.many || (link.coverage && end === link.a)) continue;
        expect(LIST_FIELDS.get(end.collection), `${name}: ${end.collection}.${end.field}`).toContain(end.field);
      }
    }
  });
});
