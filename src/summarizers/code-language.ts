/**
 * Names for the languages of code blocks: from a fence label (```ts) or, for unlabelled blocks, a
 * guess from the code itself. Summaries describe code by language ("a TypeScript code block")
 * instead of quoting it.
 */

/** What a block of code is, which decides how it is described. */
export type CodeKind = 'program' | 'data' | 'shell' | 'trace' | 'markup' | 'unknown';

const LABELS: Readonly<Record<string, string>> = {
  ts: 'TypeScript',
  tsx: 'TypeScript',
  mts: 'TypeScript',
  cts: 'TypeScript',
  typescript: 'TypeScript',
  js: 'JavaScript',
  jsx: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  javascript: 'JavaScript',
  node: 'JavaScript',
  py: 'Python',
  python: 'Python',
  python3: 'Python',
  py3: 'Python',
  go: 'Go',
  golang: 'Go',
  rs: 'Rust',
  rust: 'Rust',
  java: 'Java',
  kt: 'Kotlin',
  kotlin: 'Kotlin',
  swift: 'Swift',
  c: 'C',
  h: 'C',
  cpp: 'C++',
  'c++': 'C++',
  cc: 'C++',
  hpp: 'C++',
  cxx: 'C++',
  cs: 'C#',
  csharp: 'C#',
  'c#': 'C#',
  rb: 'Ruby',
  ruby: 'Ruby',
  php: 'PHP',
  scala: 'Scala',
  ex: 'Elixir',
  exs: 'Elixir',
  elixir: 'Elixir',
  hs: 'Haskell',
  haskell: 'Haskell',
  dart: 'Dart',
  r: 'R',
  lua: 'Lua',
  pl: 'Perl',
  perl: 'Perl',
  sql: 'SQL',
  psql: 'SQL',
  postgres: 'SQL',
  postgresql: 'SQL',
  mysql: 'SQL',
  sqlite: 'SQL',
  plsql: 'SQL',
  graphql: 'GraphQL',
  gql: 'GraphQL',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  shell: 'shell',
  console: 'shell',
  terminal: 'shell',
  shellsession: 'shell',
  fish: 'shell',
  ps1: 'PowerShell',
  powershell: 'PowerShell',
  pwsh: 'PowerShell',
  bat: 'Batch',
  cmd: 'Batch',
  json: 'JSON',
  jsonc: 'JSON',
  json5: 'JSON',
  yaml: 'YAML',
  yml: 'YAML',
  toml: 'TOML',
  ini: 'INI',
  env: 'dotenv',
  dotenv: 'dotenv',
  xml: 'XML',
  csv: 'CSV',
  html: 'HTML',
  htm: 'HTML',
  vue: 'Vue',
  svelte: 'Svelte',
  css: 'CSS',
  scss: 'SCSS',
  sass: 'Sass',
  less: 'Less',
  md: 'Markdown',
  markdown: 'Markdown',
  diff: 'diff',
  patch: 'diff',
  dockerfile: 'Dockerfile',
  docker: 'Dockerfile',
  makefile: 'Makefile',
  make: 'Makefile',
  tf: 'Terraform',
  hcl: 'Terraform',
  terraform: 'Terraform',
  proto: 'Protocol Buffers',
  protobuf: 'Protocol Buffers',
  prisma: 'Prisma',
  nginx: 'nginx',
  regex: 'regex',
  zig: 'Zig',
  nim: 'Nim',
  ocaml: 'OCaml',
  ml: 'OCaml',
  fs: 'F#',
  fsharp: 'F#',
  clj: 'Clojure',
  clojure: 'Clojure',
  erl: 'Erlang',
  erlang: 'Erlang',
  jl: 'Julia',
  julia: 'Julia',
  sol: 'Solidity',
  solidity: 'Solidity',
  asm: 'assembly',
  wasm: 'WebAssembly',
  traceback: 'stack trace',
  stacktrace: 'stack trace',
  log: 'log output',
  logs: 'log output',
};

// Labels that say nothing about the language: the block is guessed like an unlabelled one.
const NEUTRAL_LABELS = new Set(['', 'text', 'txt', 'plain', 'plaintext', 'code', 'none', 'output', 'out']);

const KINDS: Readonly<Record<string, CodeKind>> = {
  shell: 'shell',
  PowerShell: 'shell',
  Batch: 'shell',
  JSON: 'data',
  YAML: 'data',
  TOML: 'data',
  INI: 'data',
  dotenv: 'data',
  XML: 'data',
  CSV: 'data',
  HTML: 'markup',
  Markdown: 'markup',
  CSS: 'markup',
  SCSS: 'markup',
  Sass: 'markup',
  Less: 'markup',
  diff: 'data',
  'stack trace': 'trace',
  'log output': 'trace',
  nginx: 'data',
  Dockerfile: 'data',
  Makefile: 'data',
  regex: 'data',
};

/** Display name for a fence label: `ts` → `TypeScript`; undefined for `text` or no label. */
export function languageFromLabel(label: string): string | undefined {
  const key = label
    .trim()
    .toLowerCase()
    .replace(/^\{?\.?/, '')
    .replace(/[}\s].*$/, '');
  if (NEUTRAL_LABELS.has(key)) return undefined;
  return LABELS[key] ?? (/^[a-z][\w+#-]{0,19}$/.test(key) ? key[0]!.toUpperCase() + key.slice(1) : undefined);
}

/** One rule from several short alternatives (joined with `|`), so that each stays readable. */
function anyOf(flags: string, ...parts: RegExp[]): RegExp {
  return new RegExp(parts.map((p) => p.source).join('|'), flags);
}

// Ordered: the first matching rule wins, so more specific languages come before their relatives.
const GUESSES: ReadonlyArray<readonly [string, RegExp]> = [
  ['stack trace', anyOf('m', /^Traceback \(most recent call last\)/, /^\s*at .+[(\s]\S+:\d+(:\d+)?\)?\s*$/, /^\s*File ".+", line \d+/)],
  ['PHP', /<\?php/],
  ['HTML', /^\s*<(!doctype|html|head|body|div|span|template|section|ul|p|a|button|form|input|script)\b/im],
  [
    'SQL',
    anyOf(
      'im',
      /^\s*(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)/,
      /^\s*(CREATE\s+(TABLE|INDEX|VIEW)|ALTER\s+TABLE|WITH\s+\w+\s+AS\s*\()/,
    ),
  ],
  ['Go', anyOf('m', /^package\s+\w+\s*$/, /\bfunc\s+(\(\w+\s+\*?\w+\)\s*)?\w+\(/, /\bfmt\.\w+\(/)],
  ['Rust', anyOf('', /\bfn\s+\w+\s*(<[^>]*>)?\(/, /\blet\s+mut\s/, /\bimpl\b.*\{/, /\w+!\(/, /\bpub\s+(fn|struct|enum)\b/)],
  ['C#', anyOf('', /\busing\s+System\b/, /\bConsole\.Write/, /\bnamespace\s+[\w.]+\s*[{;]/, /\bpublic\s+async\s+Task\b/)],
  ['Java', anyOf('', /\bpublic\s+(static\s+)?(final\s+)?(class|void|interface)\b/, /\bSystem\.out\.print/, /@Override\b/)],
  ['C++', anyOf('', /#include\s*<\w+>[\s\S]*\bstd::/, /\bstd::\w+/, /\bcout\s*<</)],
  ['C', anyOf('', /#include\s*[<"][\w./]+\.h[>"]/, /\bprintf\s*\(/, /\bint\s+main\s*\(/)],
  [
    'Python',
    anyOf(
      'm',
      /^\s*def\s+\w+\s*\(.*\)\s*(->\s*[\w[\], .]+)?:/,
      /^\s*class\s+\w+(\(.*\))?:/,
      /^\s*(from\s+[\w.]+\s+import\s|import\s+\w+(\s+as\s+\w+)?\s*$)/,
      /^\s*(if\s+__name__\s*==|elif\s)/,
      /\bprint\(/,
      /\bself\.\w+/,
    ),
  ],
  [
    'TypeScript',
    anyOf(
      '',
      /:\s*(string|number|boolean|void|unknown|any|never)\b/,
      /\binterface\s+\w+\s*(<[^>]*>)?\s*\{/,
      /\btype\s+\w+\s*(<[^>]*>)?\s*=/,
      /\bas\s+const\b|<\w+>\(|\bimport\s+type\b|\w+\?:\s*\w+|\):\s*Promise</,
      /\b(private|readonly)\s+\w+\s*:/,
    ),
  ],
  [
    'JavaScript',
    anyOf(
      '',
      /\b(const|let|var)\s+[\w{[]|\bfunction\b|=>/,
      /console\.\w+\(|\brequire\(|\bmodule\.exports\b/,
      /\bexport\s+(default|const|function|class)\b|\bimport\s+.+\s+from\s+['"]/,
      /\bawait\s+\w+/,
    ),
  ],
  ['Ruby', anyOf('m', /^\s*def\s+\w+[^:\n]*$[\s\S]*^\s*end\s*$/, /\bputs\s/, /\battr_accessor\b/)],
  [
    'shell',
    anyOf(
      'm',
      /^\s*(\$\s+\S|#!\/bin\/(ba|z)?sh)/,
      /^\s*(sudo|npm|npx|pnpm|yarn|git|docker|kubectl|pip3?|cargo|brew|apt(-get)?|curl|wget)\s/,
      /^\s*(cd|ls|mkdir|rm|cp|mv|chmod|export|echo)\s/,
    ),
  ],
  ['CSS', /^[ \t\w.#:>,*[\]="-]+\{[ \t]*\n[ \t]*[\w-]+[ \t]*:[^;\n]+;/m],
  ['YAML', /^([ \t]*-[ \t]+)?[\w.-]+:([ \t]+[^{};\n]*)?(\n[ \t]*(-[ \t]+)?[\w.-]+:([ \t]+[^{};\n]*)?){2}/m],
  ['dotenv', /^[A-Z][A-Z0-9_]+=\S*$/m],
];

/** A guess at the language of unlabelled code, or undefined when nothing is telling. */
export function guessLanguage(code: string): string | undefined {
  // The first lines tell the language as well as the whole block, and keep the rules cheap.
  const sample = code.length > 4000 ? code.slice(0, code.lastIndexOf('\n', 4000) + 1 || 4000) : code;
  const trimmed = sample.trim();
  if (/^[{[]/.test(trimmed)) {
    try {
      JSON.parse(trimmed);
      return 'JSON';
    } catch {
      // Not JSON: let the rules decide.
    }
  }
  for (const [language, rule] of GUESSES) if (rule.test(sample)) return language;
  return undefined;
}

/** The kind of code, for choosing words: programs are "code", JSON is a "snippet", shell "commands". */
export function codeKind(language: string | undefined): CodeKind {
  if (language === undefined) return 'unknown';
  return KINDS[language] ?? 'program';
}

/**
 * A noun phrase for a code block without an article: `TypeScript code`, `JSON`, `shell commands`,
 * `stack trace`, `code` (unknown language).
 */
export function codeNoun(language: string | undefined): string {
  switch (codeKind(language)) {
    case 'unknown':
      return 'code';
    case 'shell':
      return language === 'shell' ? 'shell commands' : `${language} commands`;
    case 'trace':
      return language!;
    case 'data':
    case 'markup':
      return `${language} snippet`;
    case 'program':
      return `${language} code`;
  }
}

/** `a`/`an` for a following word, by its first letter (good enough for language names). */
export function article(next: string): string {
  return /^[aeiouAEIOU]|^(SQL|HTML|XML|INI|F#|R)\b/.test(next) && !/^(U[a-z]|Eu)/.test(next) ? 'an' : 'a';
}
