/** Word lists the rewriting rules share. Lower-case throughout. */

/** Auxiliaries that invert in questions (`does it`, `can I`, `is there`). */
export const AUX = new Set([
  'do',
  'does',
  'did',
  'is',
  'are',
  'am',
  'was',
  'were',
  'can',
  'could',
  'should',
  'would',
  'will',
  'shall',
  'may',
  'might',
  'must',
  'have',
  'has',
  'had',
]);

export const DO_FORMS = new Set(['do', 'does', 'did']);

export const WH = new Set(['how', 'what', 'why', 'where', 'when', 'which', 'who', 'whom', 'whose', 'whether']);

/** Pronouns that can stand alone as a subject. */
export const SUBJECT_PRONOUNS = new Set([
  'i',
  'you',
  'we',
  'they',
  'he',
  'she',
  'it',
  'this',
  'that',
  'there',
  'one',
  'someone',
  'something',
  'everything',
  'anyone',
  'anything',
  'these',
  'those',
  'nothing',
  'everyone',
  'people',
]);

/** Words that open a noun phrase. */
export const DETERMINERS = new Set([
  'the',
  'a',
  'an',
  'this',
  'that',
  'these',
  'those',
  'my',
  'your',
  'our',
  'their',
  'his',
  'her',
  'its',
  'some',
  'any',
  'every',
  'each',
  'no',
  'all',
  'both',
  'another',
  'such',
]);

/** Determiners replaced by `the` in titles (`Fixing my build` → `Fixing the build`). */
export const DEICTIC_DETERMINERS = new Set(['my', 'your', 'our', 'their', 'this', 'that', 'these', 'those', 'his', 'her']);

/**
 * Base forms of verbs common in developer chats and everyday dialogue. The part-of-speech model
 * often tags them as nouns (`Use`, `support`, `time out`), so rewriting rules consult this list too.
 */
export const VERBS = new Set(
  `accept access add adjust allow apply ask assign avoid bind block boot break build bundle cache
  call cancel cap catch change check choose clean clear click clone close collect combine commit
  compare compile compute configure connect contain convert copy crash create debug declare decode
  define delete deploy describe destroy detect disable display do download drop dump edit emit
  enable encode ensure exit expect explain export expose extend extract fail fetch fill filter find
  fire fix flatten flush focus follow force format freeze generate get give go grab handle hang help
  hide hit host ignore implement import improve include increase initialize inject insert install
  integrate invalidate invoke iterate join keep kill know launch leak learn let limit link lint list
  load lock log look loop make manage map match measure memoize merge migrate mock modify mount move
  need normalize open optimize order output override package parse pass patch pause persist pick
  pin ping play poll populate post prefer prevent print process publish pull push put query queue
  raise reach read rebuild receive recommend reduce refactor refresh register reject release reload
  remove rename render repeat replace reproduce request require reset resolve respond restart
  restore retry return reuse revert rewrite roll rotate route run save scale scan schedule scroll
  search see select send serialize serve set setup share show shut sign skip slice sort spawn split
  start stop store stream stub submit subscribe suggest support swap switch sync take tell test
  throttle throw time toggle track train transform translate trigger trim try turn type undo
  uninstall unmount unpack update upgrade upload use validate verify view wait want watch work wrap
  write`.split(/\s+/),
);

/** Verbs after which a request is about a subject rather than a task: `explain closures` → `Closures`. */
export const TOPIC_VERBS = new Set(['explain', 'describe', 'summarize', 'clarify', 'define']);

/** Words that make a user's statement a problem report (`The user reported that …`). */
export const PROBLEM_WORDS = new Set([
  'error',
  'errors',
  'fail',
  'fails',
  'failed',
  'failing',
  'failure',
  'crash',
  'crashes',
  'crashed',
  'crashing',
  'broken',
  'breaks',
  'exception',
  'bug',
  'issue',
  'problem',
  'stuck',
  'timeout',
  'undefined',
  'null',
  'wrong',
  'unable',
  'cannot',
  'hangs',
  'leak',
  'slow',
  'refused',
  'denied',
  'missing',
  'warning',
  'throws',
  'panic',
  'segfault',
]);

/** Brand names that are written in lower case and must stay so at the start of a title. */
export const LOWERCASE_BRANDS = new Set([
  'npm',
  'pnpm',
  'npx',
  'ios',
  'macos',
  'ipados',
  'iphone',
  'ipad',
  'jquery',
  'webpack',
  'esbuild',
  'kubectl',
  'grpc',
  'tsc',
  'tsx',
  'vitest',
  'eslint',
  'nginx',
  'systemd',
  'pytest',
  'pip',
  'uv',
]);

// Words that say something is wrong or wanted without saying what: `Why is this happening?` and
// `What is the best approach?` name no topic.
export const VAGUE_TERMS = new Set([
  'happen',
  'fail',
  'work',
  'break',
  'wrong',
  'fix',
  'help',
  'mean',
  'occur',
  'solve',
  'resolve',
  'debug',
  'crash',
  'throw',
  'go',
  'idea',
  'thought',
  'approach',
  'option',
  'solution',
  'good',
  'best',
  'problem',
  'issue',
  'error',
  'thing',
  'so',
  'here',
  'now',
  'really',
  'still',
  'just',
  'on',
]);

/** Titles before a name, the mark of a form of address (`Mrs. Wang, …`, `…, Dr. Lee?`). */
export const HONORIFIC = /^(mr|mrs|ms|miss|dr|doctor|sir|madam|ma'am|professor|prof)\.?$/;
