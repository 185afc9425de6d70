import { describe, expect, it } from 'vitest';
import { type IndexedDoc, TextIndex } from '../../src/search/text-index.js';
import { MAX_IDENTIFIER_PARTS, MAX_WORD_TERMS, queryWords, termsOf } from '../../src/search/tokens.js';
import { runAtOnce } from '../../src/slices.js';

const doc = (id: string, text: string, conversation = 'c1', created = 1_000): IndexedDoc => ({
  field: 'userMessage',
  id,
  conversation,
  text,
  created,
  updated: created,
});
const search = (index: TextIndex, text: string, prefix = false) =>
  index.searchMessages({ text, words: queryWords(text), prefix, limit: 1000 }).map((hit) => hit.id);

describe('terms', () => {
  it('splits identifiers, file names and paths, stems English, pairs unspaced scripts, drops stop words', () => {
    expect(termsOf('useEffect')).toEqual(['useeffect', 'use', 'effect']);
    expect(termsOf('ERR_MODULE_NOT_FOUND')).toEqual(['err_module_not_found', 'err', 'modul', 'found']);
    expect(termsOf('src/app.tsx HTTPServer')).toEqual(['src', 'app', 'tsx', 'httpserver', 'http', 'server']);
    expect(termsOf('The builds were failing')).toEqual(['build', 'fail']);
    expect(termsOf('搜索对话')).toEqual(['搜索', '索对', '对话']);
    expect(termsOf('Größe')).toEqual(['größe']);
  });
});

describe('bounded terms', () => {
  const parts =
    'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(
      ' ',
    );
  const identifier = parts.map((part, i) => (i === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join('');

  it('splits an identifier into its first 16 parts, when indexed and when asked alike', () => {
    expect(termsOf(identifier)).toEqual(termsOf(parts.slice(0, MAX_IDENTIFIER_PARTS).join(' ')));
    const index = new TextIndex();
    index.put(doc('a', `call ${identifier} here`));
    index.put(doc('b', `and ${parts.join(' ')}`));
    expect(search(index, identifier).sort()).toEqual(['a', 'b']);
    expect(search(index, parts[2]!).sort()).toEqual(['a', 'b']);
    expect(search(index, parts[MAX_IDENTIFIER_PARTS + 1]!)).toEqual(['b']);
  });

  it('looks for the first 32 terms of a query word (a run of Chinese is a term per pair)', () => {
    const run = '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可生自会那后能对着事其里所去行过';
    expect(termsOf(run)).toHaveLength([...run].length - 1);
    const [word] = queryWords(run);
    expect(word!.terms).toEqual(termsOf(run).slice(0, MAX_WORD_TERMS));
  });
});

describe('TextIndex', () => {
  it('finds a document written again (its old postings are dead, not counted against it)', () => {
    const index = new TextIndex();
    index.put(doc('a', 'read a json file without blocking'));
    index.put(doc('b', 'use readFile and JSON.parse'));
    index.put(doc('a', 'read a json file without blocking'));
    expect(search(index, 'read').sort()).toEqual(['a', 'b']);
    expect(search(index, 'blocking')).toEqual(['a']);
  });

  it('answers the same after a compaction drops the dead documents, and while it runs', async () => {
    const index = new TextIndex();
    for (let i = 0; i < 7000; i++) index.put(doc(`m${i}`, `message number ${i} about ${i % 2 === 0 ? 'kafka' : 'redis'}`, `c${i % 50}`));
    // Past 5,000 dead and a fifth of all: the index compacts itself, in the background.
    for (let i = 0; i < 6000; i++) index.remove('userMessage', `m${i}`);
    const check = () => {
      expect(index.size).toBe(1000);
      expect(search(index, 'number 6500')[0]).toBe('m6500');
      expect(search(index, '5999')).not.toContain('m5999');
      expect(search(index, 'kafka')).toHaveLength(500);
    };
    check();
    index.put(doc('late', 'kafka again'));
    expect(search(index, 'again')).toEqual(['late']);
    await index.settled();
    expect(index.size).toBe(1001);
    expect(search(index, 'again')).toEqual(['late']);
    index.remove('userMessage', 'late');
    check();
  });

  it('finds the longer words a prefix starts, among sorted and newly added terms', () => {
    const index = new TextIndex();
    // Words of letters alone (digits would split them): `q` and the number in base 26.
    const word = (i: number) => `q${[...i.toString(26)].map((c) => String.fromCharCode(97 + Number.parseInt(c, 26))).join('')}`;
    // Over 4,096 new terms: the sorted list is merged at least once, and later ones wait unsorted.
    for (let i = 0; i < 9000; i++) index.put(doc(`m${i}`, word(i)));
    expect(search(index, word(4321).slice(0, -1), true)).toContain('m4321');
    expect(search(index, word(8999).slice(0, -1), true)).toContain('m8999');
    const prefix = word(8999).slice(0, -1);
    const expected = Array.from({ length: 9000 }, (_, i) => i).filter((i) => word(i).startsWith(prefix));
    expect(search(index, prefix, true).sort()).toEqual(expected.map((i) => `m${i}`).sort());
  });

  it('gives the same answers once written into its parts and restored from them', async () => {
    const index = new TextIndex();
    for (let i = 0; i < 300; i++) index.put(doc(`m${i}`, `step ${i}: configure webpack ${i % 3 === 0 ? 'proxy' : 'loader'}`, `c${i % 7}`));
    index.remove('userMessage', 'm3');
    index.put({ field: 'name', id: 'c1', conversation: 'c1', text: 'Webpack proxy setup', created: 5_000, updated: 5_000 });
    const restored = runAtOnce(TextIndex.restore(await index.parts()));
    for (const text of ['proxy', 'webpack loader', 'configur', 'step 150'])
      expect(search(restored, text, true)).toEqual(search(index, text, true));
    const conversations = (ix: TextIndex) =>
      ix.searchConversations({ text: 'proxy', words: queryWords('proxy setup'), prefix: false, limit: 5 });
    expect(conversations(restored)).toEqual(conversations(index));
  });

  it('answers the same whether its terms sit in one mutable segment or in many merged ones, while they merge and after', async () => {
    // Words drawn from a small vocabulary (so terms recur across documents) and made-up ones (so many are new).
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const vocabulary = [
      'webpack',
      'proxy',
      'loader',
      'docker',
      'compose',
      'kafka',
      'lag',
      'useEffect',
      'ERR_MODULE_NOT_FOUND',
      'src/app.tsx',
    ];
    const made = () => Array.from({ length: 4 + Math.floor(next() * 5) }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join('');
    const text = () =>
      Array.from({ length: 20 }, () => (next() < 0.5 ? vocabulary[Math.floor(next() * vocabulary.length)] : made())).join(' ');
    const merged = new TextIndex({ terms: 64, postings: 512 });
    const whole = new TextIndex();
    const queries: [string, boolean][] = [
      ['webpack proxy', false],
      ['kafka', false],
      ['effect', false],
      ['modul', true],
      ['ab', true],
      ['dokcer', false],
    ];
    const same = () => {
      for (const [query, prefix] of queries) {
        const ask = { text: query, words: queryWords(query), prefix, limit: 50 };
        expect(merged.searchMessages(ask)).toEqual(whole.searchMessages(ask));
        expect(merged.searchConversations(ask)).toEqual(whole.searchConversations(ask));
      }
    };
    for (let i = 0; i < 600; i++) {
      const written = doc(`m${i}`, text(), `c${i % 40}`, 1_000 + i);
      const name: IndexedDoc = { ...written, id: `c${i % 40}`, field: 'name', text: i % 3 === 0 ? made() : '' };
      for (const index of [merged, whole]) {
        index.put(written);
        index.put(name);
      }
      // The merges run between writes, a slice at a time: answers are checked while they run.
      if (i % 50 === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        same();
      }
    }
    await merged.settled();
    same();
    // Documents removed and written again leave dead postings, which a merge drops: once both are
    // merged into one segment, they answer the same again.
    for (let i = 0; i < 600; i += 3) {
      merged.remove('userMessage', `m${i}`);
      whole.remove('userMessage', `m${i}`);
      const again = doc(`m${i + 1}`, text(), `c${(i + 1) % 40}`, 9_000 + i);
      merged.put(again);
      whole.put(again);
    }
    await Promise.all([merged.parts(), whole.parts()]);
    same();
  });

  it('ranks by BM25: rarer words and shorter documents first; similarity stays within 0–1', () => {
    const index = new TextIndex();
    index.put(doc('short', 'docker compose'));
    index.put(doc('long', 'docker compose is one of many tools you could use to run several containers together on one machine'));
    index.put(doc('other', 'docker build'));
    const hits = index.searchMessages({ text: '', words: queryWords('docker compose'), prefix: false, limit: 10 });
    expect(hits.map((hit) => hit.id)).toEqual(['short', 'long', 'other']);
    for (const hit of hits) expect(hit.similarity).toBeGreaterThan(0);
    for (const hit of hits) expect(hit.similarity).toBeLessThanOrEqual(1);
  });
});
