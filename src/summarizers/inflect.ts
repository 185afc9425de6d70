/**
 * English verb inflection for rewriting: `retry` → `retrying` (titles), `fail` → `fails` and
 * `fail` → `failed` (reported questions). Rules plus the irregular verbs a developer chat is likely
 * to use; an unknown irregular verb gets the regular form, which is wrong but still readable.
 */

const IRREGULAR_PAST: Readonly<Record<string, string>> = {
  be: 'was',
  have: 'had',
  do: 'did',
  go: 'went',
  get: 'got',
  make: 'made',
  run: 'ran',
  break: 'broke',
  take: 'took',
  write: 'wrote',
  throw: 'threw',
  see: 'saw',
  find: 'found',
  give: 'gave',
  come: 'came',
  say: 'said',
  know: 'knew',
  think: 'thought',
  build: 'built',
  send: 'sent',
  set: 'set',
  put: 'put',
  read: 'read',
  begin: 'began',
  choose: 'chose',
  leave: 'left',
  lose: 'lost',
  mean: 'meant',
  feel: 'felt',
  keep: 'kept',
  hold: 'held',
  bring: 'brought',
  buy: 'bought',
  catch: 'caught',
  teach: 'taught',
  tell: 'told',
  sell: 'sold',
  spend: 'spent',
  understand: 'understood',
  win: 'won',
  hit: 'hit',
  cut: 'cut',
  let: 'let',
  shut: 'shut',
  quit: 'quit',
  cost: 'cost',
  hang: 'hung',
  freeze: 'froze',
  forget: 'forgot',
  pay: 'paid',
  lay: 'laid',
  speak: 'spoke',
  steal: 'stole',
  wake: 'woke',
  drive: 'drove',
  ride: 'rode',
  rise: 'rose',
  fall: 'fell',
  eat: 'ate',
  drink: 'drank',
  sing: 'sang',
  swim: 'swam',
  sit: 'sat',
  stand: 'stood',
  meet: 'met',
  lead: 'led',
  feed: 'fed',
  fight: 'fought',
  seek: 'sought',
  sleep: 'slept',
  grow: 'grew',
  draw: 'drew',
  show: 'showed',
  become: 'became',
  overwrite: 'overwrote',
  rebuild: 'rebuilt',
  rerun: 'reran',
  rewrite: 'rewrote',
  undo: 'undid',
  upset: 'upset',
  withdraw: 'withdrew',
  split: 'split',
  spread: 'spread',
  bind: 'bound',
};

// Two-syllable verbs stressed on the last syllable double their final consonant (`debugging`).
const DOUBLING = new Set([
  'debug',
  'commit',
  'submit',
  'omit',
  'refer',
  'prefer',
  'occur',
  'begin',
  'forget',
  'upset',
  'regret',
  'permit',
  'admit',
  'control',
  'patrol',
  'compel',
  'equip',
  'transfer',
  'rebut',
  'unzip',
  'unwrap',
  'embed',
  'excel',
  'expel',
  'propel',
  'outfit',
  'input',
  'output',
  'offset',
  'format',
  'quit',
  'rerun',
  'reset',
  'remap',
  'rewrap',
  'refit',
  'unpin',
  'recap',
  'unplug',
  'upset',
]);

const VOWEL = /[aeiou]/;

function syllables(word: string): number {
  return (word.replace(/^y/, '').match(/[aeiouy]+/g) ?? []).length;
}

/** Whether the last consonant doubles before -ing/-ed (`stop` → `stopping`, `open` → `opening`). */
function doubles(word: string): boolean {
  if (DOUBLING.has(word)) return true;
  return syllables(word) === 1 && /[^aeiou][aeiou][bcdfgklmnprstvz]$/.test(word);
}

function splitHyphen(verb: string): [string, string] {
  const at = verb.lastIndexOf('-');
  return at < 0 ? ['', verb] : [verb.slice(0, at + 1), verb.slice(at + 1)];
}

/** `retry` → `retrying`, `use` → `using`, `set` → `setting`, `re-render` → `re-rendering`. */
export function gerund(verb: string): string {
  const [head, base] = splitHyphen(verb);
  const w = base.toLowerCase();
  let out: string;
  if (w === 'be' || w === 'see' || /(ee|ye|oe)$/.test(w)) out = base + 'ing';
  else if (/ie$/.test(w)) out = base.slice(0, -2) + 'ying';
  else if (/[^aeiou]e$/.test(w) || w.endsWith('ue')) out = base.slice(0, -1) + 'ing';
  else if (/[^aeiou]ic$/.test(w)) out = base + 'king';
  else if (doubles(w)) out = base + base.slice(-1) + 'ing';
  else out = base + 'ing';
  return head + out;
}

/** Third person singular present: `fail` → `fails`, `fix` → `fixes`, `retry` → `retries`. */
export function thirdPerson(verb: string): string {
  const [head, base] = splitHyphen(verb);
  const w = base.toLowerCase();
  let out: string;
  if (w === 'be') out = 'is';
  else if (w === 'have') out = 'has';
  else if (w === 'do' || w === 'go' || /(s|x|z|ch|sh)$/.test(w) || /[^aeiou]o$/.test(w)) out = base + 'es';
  else if (/[^aeiou]y$/.test(w)) out = base.slice(0, -1) + 'ies';
  else out = base + 's';
  return head + out;
}

/** Simple past: `fail` → `failed`, `stop` → `stopped`, `build` → `built`. */
export function past(verb: string): string {
  const [head, base] = splitHyphen(verb);
  const w = base.toLowerCase();
  const irregular = IRREGULAR_PAST[w];
  let out: string;
  if (irregular) out = irregular;
  else if (w.endsWith('e')) out = base + 'd';
  else if (/[^aeiou]y$/.test(w)) out = base.slice(0, -1) + 'ied';
  else if (/[^aeiou]ic$/.test(w)) out = base + 'ked';
  else if (doubles(w)) out = base + base.slice(-1) + 'ed';
  else out = base + 'ed';
  return head + out;
}

/** True when `text` looks like a verb's base form we can inflect (letters and hyphens only). */
export function isInflectable(text: string): boolean {
  return /^[a-z]+(-[a-z]+)*$/i.test(text) && VOWEL.test(text.toLowerCase());
}
