import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
const roots = { before: '/tmp/cms-before', after: '/work/wt-damage' };
const mods: Record<string, any> = {};
for (const [k, root] of Object.entries(roots)) mods[k] = await import(path.join(root, 'src/index.ts'));
const stores: Record<string, any> = {};
for (const k of Object.keys(roots)) {
  const dir = await mkdtemp(path.join(tmpdir(), `ab2-${k}-`));
  const m = mods[k];
  const repo = await m.createJsonFileRepository({ file: path.join(dir, 'db.json'), durability: 'unsafe-no-fsync' });
  const s = await m.createService({ repository: repo, conversationJsonCacheBytes: 0 });
  const conv = await s.createConversation({ type: 'COPILOT', messages: Array.from({ length: 20 }, (_, i) => ({ role: 'USER', fragment: { string: { raw: `m ${i} lorem ipsum` } } })) });
  await new Promise((r) => setTimeout(r, 500));
  stores[k] = { dir, s, repo, id: conv.id, ids: conv.messages.iterable.map((m: any) => m.id) };
}
const res: Record<string, Record<string, number[]>> = { before: {}, after: {} };
for (let round = 0; round < 8; round++) {
  for (const k of round % 2 ? ['after', 'before'] : ['before', 'after']) {
    const { s, repo, id, ids } = stores[k];
    let t = performance.now();
    for (let i = 0; i < 20000; i++) await s.getConversation(id);
    (res[k]!['getConversation µs'] ??= []).push(((performance.now() - t) * 1000) / 20000);
    t = performance.now();
    for (let i = 0; i < 50000; i++) await repo.read((view: any) => view.getMany('messages', ids));
    (res[k]!['getMany(20) µs'] ??= []).push(((performance.now() - t) * 1000) / 50000);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const name of Object.keys(res.before!)) console.log(name, 'before', med(res.before![name]!).toFixed(2), 'after', med(res.after![name]!).toFixed(2), res.before![name]!.map((x) => x.toFixed(1)).join(' '), '|', res.after![name]!.map((x) => x.toFixed(1)).join(' '));
for (const k of Object.keys(roots)) { await stores[k].s.close(); await rm(stores[k].dir, { recursive: true, force: true }); }
