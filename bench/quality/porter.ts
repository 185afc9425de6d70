/**
 * The Porter (1980) stemmer, as NLTK's `PorterStemmer` implements it, which is what the Python
 * `rouge_score` package stems with (`porter.PorterStemmer()`, NLTK's default `NLTK_EXTENSIONS`
 * mode). `{ original: true }` gives NLTK's `ORIGINAL_ALGORITHM` mode, the published algorithm
 * without NLTK's extensions. This is Porter 1, not Porter2/Snowball (`wink-porter2-stemmer`), whose
 * stems differ (`generously` → `generous` there, `gener` here).
 *
 * Input is one lower-case word of ASCII letters; other characters pass through the rules as
 * consonants, as in NLTK.
 */
export interface PorterOptions {
  /** NLTK's `ORIGINAL_ALGORITHM` mode instead of its default `NLTK_EXTENSIONS` mode. */
  readonly original?: boolean;
}

// NLTK_EXTENSIONS: irregular forms answered as they are.
const POOL: Readonly<Record<string, string>> = {
  sky: 'sky',
  skies: 'sky',
  dying: 'die',
  lying: 'lie',
  tying: 'tie',
  news: 'news',
  innings: 'inning',
  inning: 'inning',
  outings: 'outing',
  outing: 'outing',
  cannings: 'canning',
  canning: 'canning',
  howe: 'howe',
  proceed: 'proceed',
  exceed: 'exceed',
  succeed: 'succeed',
};

type Condition = ((stem: string) => boolean) | null;
type Rule = readonly [suffix: string, replacement: string, condition: Condition];

export function porterStem(input: string, options: PorterOptions = {}): string {
  const nltk = !options.original;
  const word = input.toLowerCase();
  if (nltk && Object.hasOwn(POOL, word)) return POOL[word]!;
  if (nltk && word.length <= 2) return word;

  const consonant = (w: string, i: number): boolean => {
    const c = w[i]!;
    if ('aeiou'.includes(c)) return false;
    if (c === 'y') return i === 0 ? true : !consonant(w, i - 1);
    return true;
  };
  // m in [C](VC)^m[V].
  const measure = (stem: string): number => {
    let form = '';
    for (let i = 0; i < stem.length; i += 1) form += consonant(stem, i) ? 'c' : 'v';
    return (form.match(/vc/g) ?? []).length;
  };
  const positive = (stem: string): boolean => measure(stem) > 0;
  const hasVowel = (stem: string): boolean => [...stem].some((_, i) => !consonant(stem, i));
  const doubleConsonant = (w: string): boolean => w.length >= 2 && w.at(-1) === w.at(-2) && consonant(w, w.length - 1);
  const cvc = (w: string): boolean =>
    (w.length >= 3 &&
      consonant(w, w.length - 3) &&
      !consonant(w, w.length - 2) &&
      consonant(w, w.length - 1) &&
      !'wxy'.includes(w.at(-1)!)) ||
    (nltk && w.length === 2 && !consonant(w, 0) && consonant(w, 1));

  // The first rule whose suffix matches decides: its condition holding or not, no later rule runs.
  const apply = (w: string, rules: readonly Rule[]): string => {
    for (const [suffix, replacement, condition] of rules) {
      if (suffix === '*d') {
        if (!doubleConsonant(w)) continue;
        const stem = w.slice(0, -2);
        return !condition || condition(stem) ? stem + replacement : w;
      }
      if (w.endsWith(suffix)) {
        const stem = w.slice(0, w.length - suffix.length);
        return !condition || condition(stem) ? stem + replacement : w;
      }
    }
    return w;
  };

  const step1a = (w: string): string => {
    if (nltk && w.endsWith('ies') && w.length === 4) return `${w.slice(0, -3)}ie`;
    return apply(w, [
      ['sses', 'ss', null],
      ['ies', 'i', null],
      ['ss', 'ss', null],
      ['s', '', null],
    ]);
  };

  const step1b = (w: string): string => {
    if (nltk && w.endsWith('ied')) return w.length === 4 ? `${w.slice(0, -3)}ie` : `${w.slice(0, -3)}i`;
    if (w.endsWith('eed')) {
      const stem = w.slice(0, -3);
      return measure(stem) > 0 ? `${stem}ee` : w;
    }
    let stem: string | undefined;
    for (const suffix of ['ed', 'ing']) {
      if (w.endsWith(suffix) && hasVowel(w.slice(0, -suffix.length))) {
        stem = w.slice(0, -suffix.length);
        break;
      }
    }
    if (stem === undefined) return w;
    const last = stem.at(-1) ?? '';
    return apply(stem, [
      ['at', 'ate', null],
      ['bl', 'ble', null],
      ['iz', 'ize', null],
      ['*d', last, () => !'lsz'.includes(last)],
      ['', 'e', (s) => measure(s) === 1 && cvc(s)],
    ]);
  };

  const step1c = (w: string): string => apply(w, [['y', 'i', nltk ? (s) => s.length > 1 && consonant(s, s.length - 1) : hasVowel]]);

  const step2 = (w: string): string => {
    if (nltk && w.endsWith('alli') && positive(w.slice(0, -4))) return step2(`${w.slice(0, -4)}al`);
    const rules: Rule[] = [
      ['ational', 'ate', positive],
      ['tional', 'tion', positive],
      ['enci', 'ence', positive],
      ['anci', 'ance', positive],
      ['izer', 'ize', positive],
      nltk ? ['bli', 'ble', positive] : ['abli', 'able', positive],
      ['alli', 'al', positive],
      ['entli', 'ent', positive],
      ['eli', 'e', positive],
      ['ousli', 'ous', positive],
      ['ization', 'ize', positive],
      ['ation', 'ate', positive],
      ['ator', 'ate', positive],
      ['alism', 'al', positive],
      ['iveness', 'ive', positive],
      ['fulness', 'ful', positive],
      ['ousness', 'ous', positive],
      ['aliti', 'al', positive],
      ['iviti', 'ive', positive],
      ['biliti', 'ble', positive],
    ];
    if (nltk) rules.push(['fulli', 'ful', positive], ['logi', 'log', () => positive(w.slice(0, -3))]);
    return apply(w, rules);
  };

  const step3 = (w: string): string =>
    apply(w, [
      ['icate', 'ic', positive],
      ['ative', '', positive],
      ['alize', 'al', positive],
      ['iciti', 'ic', positive],
      ['ical', 'ic', positive],
      ['ful', '', positive],
      ['ness', '', positive],
    ]);

  const step4 = (w: string): string => {
    const big = (s: string): boolean => measure(s) > 1;
    return apply(w, [
      ['al', '', big],
      ['ance', '', big],
      ['ence', '', big],
      ['er', '', big],
      ['ic', '', big],
      ['able', '', big],
      ['ible', '', big],
      ['ant', '', big],
      ['ement', '', big],
      ['ment', '', big],
      ['ent', '', big],
      ['ion', '', (s) => big(s) && /[st]$/.test(s)],
      ['ou', '', big],
      ['ism', '', big],
      ['ate', '', big],
      ['iti', '', big],
      ['ous', '', big],
      ['ive', '', big],
      ['ize', '', big],
    ]);
  };

  const step5a = (w: string): string => {
    if (!w.endsWith('e')) return w;
    const stem = w.slice(0, -1);
    const m = measure(stem);
    return m > 1 || (m === 1 && !cvc(stem)) ? stem : w;
  };

  const step5b = (w: string): string => apply(w, [['ll', 'l', () => measure(w.slice(0, -1)) > 1]]);

  return step5b(step5a(step4(step3(step2(step1c(step1b(step1a(word))))))));
}
