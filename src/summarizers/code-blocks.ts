import { guessLanguage, languageFromLabel } from './code-language.js';

/** A block of code found in a message. The summarizer describes it by `language`, never quotes it. */
export interface CodeBlock {
  /** Display name (`TypeScript`, `shell`, `stack trace`), or undefined when unknown. */
  readonly language: string | undefined;
  readonly text: string;
}

/** A message's text split into prose (code removed, paragraphs kept) and its code blocks. */
export interface SplitText {
  readonly prose: string;
  readonly code: readonly CodeBlock[];
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const INDENTED = /^( {4,}|\t)\S/;
const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+\S/;

/**
 * Separates code from prose: fenced blocks (``` or ~~~, with or without a language), indented
 * blocks (four spaces or a tab after a blank line, unless they continue a list item), and runs of
 * unfenced lines that look like code or a stack trace (developers often paste code without fences).
 */
export function splitCode(text: string): SplitText {
  const lines = text
    .replace(/\r\n?/g, '\n')
    // Chat is sloppy Markdown: ```x``` on one line is inline code, and a fence may follow text
    // on the same line (`Here: ```js`). Putting every fence at a line start keeps code out of prose.
    .replace(/(`{3,})(?=[^`\n]*[^`\s])([^`\n]+?)\1/g, '`$2`')
    .replace(/([^\n])[ \t]*(`{3,}|~{3,})/g, '$1\n$2')
    .split('\n');
  const prose: string[] = [];
  const code: CodeBlock[] = [];
  let i = 0;

  const addCode = (body: string[], language: string | undefined): void => {
    const joined = body.join('\n');
    if (joined.trim() === '') return;
    code.push({ language: language ?? guessLanguage(joined), text: joined });
    prose.push(''); // Keeps the prose around the block in separate paragraphs.
  };

  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}`);
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !close.test(lines[i]!)) body.push(lines[i++]!);
      addCode(body, languageFromLabel(fence[2] ?? ''));
      // An unclosed fence runs to the end, as in Markdown. Text after a closing fence is prose,
      // unless it is a single word: then the line opens the next block (```js after ```).
      const after = (lines[i] ?? '').replace(close, '').trim();
      if (i < lines.length && after !== '') {
        if (!/^[\w+#.-]+$/.test(after)) lines[i] = after;
      } else i += 1;
      continue;
    }
    if (INDENTED.test(line) && startsBlock(prose)) {
      const body: string[] = [];
      while (i < lines.length && continues(lines, i, (l) => INDENTED.test(l))) body.push(lines[i++]!);
      addCode(body, undefined);
      continue;
    }
    // `TypeError: …` right above `at …` lines is the head of a stack trace, not prose.
    const next = lines[i + 1] ?? '';
    if (looksLikeCode(line) || (ERROR_HEADER.test(line.trim()) && TRACE.test(next.trim()))) {
      const body: string[] = [lines[i++]!]; // The first line always belongs, so the loop advances.
      while (i < lines.length && continues(lines, i, looksLikeCode)) body.push(lines[i++]!);
      addCode(body, undefined);
      continue;
    }
    prose.push(line);
    i += 1;
  }
  return {
    prose: prose
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    code,
  };
}

/** Whether line `i` continues a block: it matches, or it is blank and the next line matches. */
function continues(lines: readonly string[], i: number, test: (line: string) => boolean): boolean {
  const line = lines[i]!;
  return test(line) || (line.trim() === '' && test(lines[i + 1] ?? ''));
}

/** An indented line starts a code block only after a blank line, and not inside a list item. */
function startsBlock(prose: readonly string[]): boolean {
  if (prose.length === 0) return true;
  if (prose[prose.length - 1]!.trim() !== '') return false;
  for (let k = prose.length - 1; k >= 0; k -= 1) {
    const previous = prose[k]!;
    if (previous.trim() !== '') return !LIST_ITEM.test(previous) && !/^\s{2,}\S/.test(previous);
  }
  return true;
}

const CODE_START = new RegExp(
  '^(import|export|const|let|var|function|async function|def|class|return|public|private|protected|package|using|' +
    'fn|func|impl|struct|enum|interface|type|from\\s+\\S+\\s+import|#include|#define|await)\\b',
);
// Function words that give away an English sentence even when it contains brackets or an `=`.
const ENGLISH = /\b(the|a|an|to|is|are|you|it|this|that|of|and|with|my|i|we|how|why|what)\b/gi;
const SHELL = new RegExp(
  '^(\\$|>>>|PS>)\\s|' +
    '^(sudo|npm|npx|pnpm|yarn|git|docker|kubectl|pip3?|cargo|brew|apt-get|curl|wget|node|python3?|go|make|' +
    'chmod|mkdir|rm)\\s+\\S*[-/.=]',
);
const ERROR_HEADER = /^([\w.$]*(Error|Exception|Panic|Fault)\b|Uncaught\b|panic:|Traceback\b)/;
const TRACE = /^at\s+\S.*[(\s]\S+:\d+(:\d+)?\)?$|^File ".+", line \d+|^Traceback \(most recent call last\)/;

/** Whether a single line reads as code rather than prose. Deliberately conservative. */
export function looksLikeCode(line: string): boolean {
  const t = line.trim();
  if (t === '' || (LIST_ITEM.test(line) && !/[;{}]$/.test(t))) return false;
  if (TRACE.test(t) || SHELL.test(t)) return true;
  if (/^[}\])]+[;,)]*$/.test(t) || /[{;]$/.test(t) || /^\/\/\s|^\/\*|^\*\/$/.test(t)) return true;
  const english = (t.replace(/(["'`]).*?\1/g, '').match(ENGLISH) ?? []).length;
  if (english >= 2) return false;
  if (CODE_START.test(t) && /[=({};:<[]|=>/.test(t) && !/[.!?]$/.test(t)) return true;
  if (/^[\w$.]+\(.*\);?$/.test(t) || /^[\w$.[\]'"]+\s*[+\-*/]?=\s*\S(.*[;)\]'"\w])?$/.test(t)) return true;
  const withoutUrls = t.replace(/https?:\/\/\S+/g, '');
  const symbols = (withoutUrls.match(/[{}()[\];=<>$|&\\*+]/g) ?? []).length;
  return withoutUrls.length >= 12 && symbols / withoutUrls.length > 0.18;
}
