import { describe, expect, it } from 'vitest';
import { RECORD_ROUTES } from '../../adapters/hono/routes.js';
import { expectError, expectJson, expectNoContent, path, routerForTest, stateOf } from '../helpers/http.js';
import { seeds } from '../helpers/service.js';

type RecordRoute = keyof typeof RECORD_ROUTES;

/** A valid seed of each record kind, and an invalid one with the field at fault. */
const SEEDS: Record<RecordRoute, { seed: Record<string, unknown>; invalid: Record<string, unknown>; field: (string | number)[] }> = {
  anchors: { seed: seeds.anchor, invalid: { type: 'SYMLINK', fullpath: '/tmp/x' }, field: ['type'] },
  assets: { seed: seeds.asset, invalid: { application: {}, format: 'plain text' }, field: ['format'] },
  websites: { seed: seeds.website, invalid: { url: 'https://example.com', name: 42 }, field: ['name'] },
  ranges: { seed: seeds.range, invalid: { from: { value: 'last tuesday' } }, field: ['from', 'value'] },
  workstreamSummaries: { seed: seeds.workstreamSummary, invalid: { name: 'Morning' }, field: ['model'] },
  annotations: { seed: seeds.annotation, invalid: { type: 'RANT', text: 'meh' }, field: ['type'] },
  tags: { seed: { text: 'typescript', category: 'UNKNOWN' }, invalid: { text: 42 }, field: ['text'] },
  persons: { seed: { type: { basic: { name: 'Ada' } } }, invalid: { type: 'Ada' }, field: ['type'] },
  workstreamEvents: {
    seed: { application: { id: 'vscode' }, trigger: {} },
    invalid: { application: { id: 'vscode' } },
    field: ['trigger'],
  },
  sources: { seed: { raw: { name: 'VS Code' }, readable: 'VS Code' }, invalid: { raw: { name: 'VS Code' } }, field: ['readable'] },
};

describe.each(Object.keys(RECORD_ROUTES) as RecordRoute[])('records: %s', (name) => {
  const { path: base } = RECORD_ROUTES[name];
  const { seed, invalid, field } = SEEDS[name];

  it(`POST /${base}/create answers 200 with the record, which GET /${base} lists`, async () => {
    const { http } = await routerForTest();
    const created = expectJson(await http.postJson(`/${base}/create`, seed));
    expect(created).toMatchObject({ id: expect.any(String), created: { value: expect.any(String) } });
    const listed = expectJson(await http.get(`/${base}`));
    expect(listed.iterable).toEqual([created]);
  });

  it(`POST /${base}/{id}/delete answers 204 and the record is no longer listed`, async () => {
    const { http } = await routerForTest();
    const created = expectJson(await http.postJson(`/${base}/create`, seed));
    expectNoContent(await http.post(`/${base}${path`/${created.id}/delete`}`));
    expect(expectJson(await http.get(`/${base}`)).iterable).toEqual([]);
    const error = expectError(await http.post(`/${base}${path`/${created.id}/delete`}`), 404, 'NOT_FOUND');
    expect(error.id).toBe(created.id);
  });

  it(`POST /${base}/create answers 400 naming the invalid field, and creates nothing`, async () => {
    const { http } = await routerForTest();
    const before = await stateOf(http);
    const error = expectError(await http.postJson(`/${base}/create`, invalid), 400, 'INVALID_INPUT');
    expect(error.issues[0].path).toEqual(field);
    expect(await stateOf(http)).toEqual(before);
  });
});

describe('records: transferables on listings', () => {
  it('GET /assets?transferables=false leaves out the content of formats', async () => {
    const { http } = await routerForTest();
    const asset = expectJson(await http.postJson('/assets/create', seeds.asset));
    const full = expectJson(await http.get('/assets'));
    expect(full.iterable[0].formats.iterable[0].fragment.string.raw).toBe('const x = 1;');
    const light = expectJson(await http.get('/assets?transferables=false'));
    expect(light.iterable.map((a: { id: string }) => a.id)).toEqual([asset.id]);
    expect(light.iterable[0].formats.iterable[0].fragment?.string).toBeUndefined();
  });
});
