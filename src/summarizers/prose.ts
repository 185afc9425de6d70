/**
 * Turns a message's prose (code already removed) into plain sentences for the NLP pipeline:
 * Markdown markup goes, list items and headings become their own sentences, links keep their
 * text, and contractions are expanded so that rewriting sees `I am`, `do not`, `it is`.
 */

const LIST_MARKER = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/;
const HEADING = /^\s{0,3}#{1,6}\s+/;

/** Stands in for the dot inside names like `Next.js` while the text is split into sentences. */
export const DOT = '\u2024';
/** Stands in for `?.` (optional chaining) for the same reason. */
export const QUESTION_DOT = '\u2047';

/** Plain prose: one paragraph per Markdown paragraph, list item or heading, separated by blank lines. */
export function cleanProse(prose: string): string {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    if (current.length > 0) paragraphs.push(current.join(' '));
    current = [];
  };
  for (const raw of prose.split('\n')) {
    if (raw.trim() === '' || /^\s*([-*_=]\s*){3,}$/.test(raw) || /\|.*\|/.test(raw)) {
      flush(); // Blank lines, rules and table rows end a paragraph; tables are not prose.
      continue;
    }
    const isItem = LIST_MARKER.test(raw) || HEADING.test(raw);
    if (isItem) flush();
    current.push(
      inline(
        raw
          .replace(LIST_MARKER, '')
          .replace(HEADING, '')
          .replace(/^\s*>\s?/, ''),
      ),
    );
    if (isItem && HEADING.test(raw)) flush();
  }
  flush();
  return paragraphs
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => /[\p{L}\p{N}]/u.test(p))
    .map((p) => (/[.!?:;]["')\]]?$/.test(p) ? p : `${p}.`)) // Lets sentence splitting see the end.
    .join('\n\n');
}

/** Markdown inline markup to plain text. */
function inline(line: string): string {
  return expandContractions(
    line
      .replace(/[\u2018\u2019\u02bc]/g, "'")
      .replace(/(\w) ' (?=(ve|re|m|s|d|ll|t)\b)/gi, "$1'") // Tokenized corpora write `I ' ve`.
      .replace(/[\u201c\u201d]/g, '"')
      // Spans are bounded ({1,300}) so that long lines of stray brackets or stars stay linear.
      .replace(/!\[([^\]]{0,300})\]\([^)]{0,2000}\)/g, '$1')
      .replace(/\[([^\]]{1,300})\]\([^)]{0,2000}\)/g, '$1')
      .replace(/<(https?:[^>\s]+)>/g, 'a link')
      .replace(/https?:\/\/[^\s)]+/g, 'a link')
      .replace(/`([^`]+)`/g, (_, code: string) => inlineCode(code))
      // JSON pasted into a sentence (`when I POST {"name": "Ada"}`) is code too.
      .replace(/\{\s*"[^{}]{0,300}\}/g, 'a JSON object')
      .replace(/(\*\*|__)(?=\S)(.{1,300}?)(?<=\S)\1/g, '$2')
      .replace(/(^|[\s(])[*_](?=\S)(.{1,300}?)(?<=\S)[*_](?=[\s).,!?:;]|$)/g, '$1$2')
      .replace(/~~(.{1,300}?)~~/g, '$1')
      .replace(/<\/?[a-z][^>]*>/gi, ' ')
      .replace(/(^|\s)i(?=\s|$|[,.!?'])/g, '$1I') // Chat often has a lower-case `i`.
      // `it works.But now …`: a sentence end typed without its space. Only before a word that opens
      // sentences and is seldom a member's name (`http.Client`, `time.Now()`, `promise.Then` keep it).
      .replace(
        /(\b[a-z]{2,})\.(?=(?:But|And|So|Because|The|I|I'm|We|You|They|He|She|What|How|Why|Where|There|Yes|No|Please|Thanks)\b(?![.(]))/g,
        '$1. ',
      )
      // `Next.js` and `console.log` would end a sentence at the dot; `readSentences` restores it.
      .replace(/([\p{L}\d_]{2,})\.(?=[\p{L}_]{2,})/gu, `$1${DOT}`)
      .replace(/(\d)\.(?=\d)/g, `$1${DOT}`) // `v1.0.0`, `3.5`: not the end of a sentence
      .replace(/(^|[\s(@/])\.(?=[\p{L}_]{2,})/gu, `$1${DOT}`) // `.dockerignore`, `.env`
      .replace(/([\p{L}\d_)\]])\?\.(?=[\p{L}_[(])/gu, `$1${QUESTION_DOT}`), // `user?.name`
  );
}

/** Short identifiers (`useEffect`, `npm ci`) read as words; longer expressions are not quoted. */
function inlineCode(code: string): string {
  const trimmed = code.trim();
  // `?` and `!` inside code (`?name=x`) would end a sentence, so such spans are not kept either.
  return trimmed.length <= 40 && !/[;{}?!&=]/.test(trimmed) ? trimmed : 'the code';
}

const PRONOUN_CONTRACTIONS: Readonly<Record<string, string>> = {
  m: 'am',
  re: 'are',
  ve: 'have',
  d: 'would',
  ll: 'will',
  s: 'is',
};

/** `I'm` → `I am`, `doesn't` → `does not`, `can't` → `cannot`, `it's been` → `it has been`. */
export function expandContractions(text: string): string {
  return text
    .replace(/\b(can)'t\b/gi, '$1not')
    .replace(/\b(won)'t\b/gi, (_, w: string) => (w[0] === 'W' ? 'Will not' : 'will not'))
    .replace(/\b(shan)'t\b/gi, 'shall not')
    .replace(/\b(\w+)n't\b/gi, '$1 not')
    .replace(/\b(it|that|there|here|what|where|who|how|he|she)'s\s+(been|got)\b/gi, '$1 has $2')
    .replace(/\b(let)'s\b/gi, '$1 us')
    .replace(
      /\b(i|you|we|they|it|that|there|here|what|where|who|how|he|she)'(m|re|ve|d|ll|s)\b/gi,
      (match: string, pronoun: string, suffix: string) => {
        const expanded = PRONOUN_CONTRACTIONS[suffix.toLowerCase()];
        if (!expanded || (suffix.toLowerCase() === 'm' && pronoun.toLowerCase() !== 'i')) return match;
        return `${pronoun.toLowerCase() === 'i' ? 'I' : pronoun} ${expanded}`;
      },
    );
}
