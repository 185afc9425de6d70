/**
 * The rules of the coding-assistant chat note, one named table each, with examples that
 * `test/summarizers/chat-rules.test.ts` checks: every `matches` example must match and every
 * `passes` example must not. To change a rule, change its pattern and its examples together.
 */

/** A named pattern with the examples that define it. */
export interface Rule {
  readonly name: string;
  /** What the rule is for, in a line. */
  readonly purpose: string;
  readonly pattern: RegExp;
  readonly examples: { readonly matches: readonly string[]; readonly passes: readonly string[] };
}

/** The assistant narrating its own next step: never quoted as an outcome. */
export const NARRATION: Rule = {
  name: 'narration',
  purpose: "the assistant's narration of its own work",
  pattern:
    /^(?:(?:let me|let us|now let|now I|(?:now )?proceeding with|I will|I am going to|I need to|I can see|I found|I have|I'?ve|perfect|great|excellent|here is|here are|read file|looking at|based on|okay|ok|sure)\b|(?:first|next|then|now|good|yes|no)[,!.:])/i,
  examples: {
    matches: [
      'Let me check the file.',
      'Now I will update it.',
      'Read file: src/index.ts',
      'Perfect! The build is green.',
      'Now, the tests.',
      'Now proceeding with Option C - creating all pages.',
    ],
    passes: ['The build now passes on CI.', 'The cause was a missing await.', 'No tests were failing after the change was merged.'],
  },
};

/** Boilerplate and assistant-tool prompts: never reported as a request, an outcome or an open question. */
export const BOILERPLATE: Rule = {
  name: 'boilerplate',
  purpose: 'closing offers and tool prompts',
  pattern:
    /continue to iterate|additional questions|feel free|let me know|hope this helps|if you (?:need|have|want)|would you like|do you want|should I\b/i,
  examples: {
    matches: ['Continue to iterate?', 'Feel free to ask any additional questions.', 'Would you like me to add tests?'],
    passes: ['The tests were added to the suite.'],
  },
};

/** Checklist and status lines, emoji, and `Label:` headings run into a sentence. */
export const MARKS: Rule = {
  name: 'marks',
  purpose: 'checklists, status lines and emoji',
  pattern: /[\p{Extended_Pictographic}\u2610-\u2612\u2713-\u2718\u27a1\u2b50\u2705\u274c]|\[[ xX-]\]|^\W*(?:[\p{Lu}][\p{L}-]*\s?){1,3}:/u,
  examples: {
    matches: ['✅ Updated PLAN.md with the new steps.', '[-] Analyze the folder structure.', 'Status: done for the API part.'],
    passes: ['The plan was updated with the new steps.'],
  },
};

/**
 * A line of a plan, a heading or a list run into a sentence: a label before a colon, an arrow or a
 * dash between parts. Quoted as an outcome it would read as a fragment.
 */
export const LIST_LINE: Rule = {
  name: 'list line',
  purpose: 'labels, headings and breadcrumbs',
  pattern:
    /^(?!(?:[Tt]he|[Aa]n?|[Tt]his|[Tt]hat|[Tt]hese|[Tt]hose|[Ii]t|[Tt]here)\b)(?:[\w/().-]+\s){0,2}[\w/().-]+:\s|^(?:[\p{Lu}][\w-]*\s){1,4}[-–—]\s|→/u,
  examples: {
    matches: [
      'Browser tab icon: The favicon will appear in browser tabs.',
      'Assets Reorganization - Clean, optimized project structure.',
      'Go to GitHub.com → Settings → Developer settings.',
    ],
    passes: [
      'The favicon now appears in browser tabs.',
      'The cause was a missing await: the promise was dropped.',
      'The problem was simple: the workflow exited early.',
      'The build now passes - all 42 tests are green.',
    ],
  },
};

/** What the assistant found, did or decided: the sentence a note quotes as the outcome. */
export const OUTCOME: Rule = {
  name: 'outcome',
  purpose: 'a finding, a change made or a decision',
  pattern:
    /\b(?:the (?:issue|problem|error|cause|root cause|fix|bug) (?:is|was)|(?:is|are|was|were|has been|have been) (?:now |successfully |already )?(?:fixed|resolved|updated|created|added|removed|moved|installed|pushed|implemented|completed|renamed|deleted|configured|merged|committed|done|ready|working|in place|tracked|passing)|now (?:uses|has|works|passes|includes|shows|runs|supports)|(?:tests?|build|ci|checks?) (?:now )?pass(?:es|ed)?|successfully|caused by|because)\b/i,
  examples: {
    matches: [
      'The problem was that the workflow exited with code 1 when no PR was found.',
      'The .env.example file is now tracked in git.',
      'All 42 tests pass.',
    ],
    passes: ['This file holds the configuration of the workflow.'],
  },
};

/** First and second person: a sentence that says them would need rewriting to be quoted as a note. */
export const PERSONAL: Rule = {
  name: 'personal',
  purpose: 'first and second person',
  // Case matters (`I`, not `i.e.`; `us`, not `US`), and a hyphenated word is not a pronoun (`us-east-1`).
  pattern: /(?<![\w-])(?:I|[Mm]e|[Mm]y|[Mm]ine|[Ww]e|[Uu]s|[Oo]ur|[Yy]ou|[Yy]our|[Yy]ours)(?![\w-])/,
  examples: {
    matches: ['I fixed your config.', 'We can move it.', 'Tell us more.'],
    passes: ['The config was fixed.', 'The bucket is in the US region, i.e. us-east-1.'],
  },
};

/** Lead-ins before a request proper, left out of its quote. */
export const ASKING: Rule = {
  name: 'asking',
  purpose: "a request's polite lead-in",
  pattern:
    /^(?:(?:hey|hi|ok|okay)[,!]?\s+)?(?:(?:can|could|would) you\s+(?:please\s+)?(?:help me\s+(?:to\s+)?)?|please\s+|help me\s+(?:to\s+)?|I (?:want|need|would like) (?:you )?(?:to\s+)?)+/i,
  examples: {
    matches: ['Can you please update the rules', 'please push this', 'I want you to add a favicon'],
    passes: ['update the rules'],
  },
};

/** Follow-ups that leave nothing open: `continue`, `thanks`. */
export const FOLLOW_UP: Rule = {
  name: 'follow-up',
  purpose: 'a last message that asks for nothing new',
  pattern: /^(?:continue|next|go on|ok|okay|yes|no|thanks|thank you|great|perfect)\W*$/i,
  examples: { matches: ['continue', 'Thanks!', 'ok.'], passes: ['continue with task 7'] },
};

/** A long prompt's label for its task: the line after it says what the chat is for. */
export const TASK_LABEL: Rule = {
  name: 'task label',
  purpose: 'the labelled task line of a long prompt',
  pattern: /^\W*(?:goal|task|objective|focus)\s*:\s*/i,
  examples: {
    matches: ['Goal: expand “Saved” into a real Research Library.', 'FOCUS: Create staging environment for Chef Chopsky'],
    passes: ['The goal is to expand the library.', 'Tasks are listed in the plan file.'],
  },
};

/** Every table, for the examples test. */
export const CHAT_RULES: readonly Rule[] = [NARRATION, BOILERPLATE, MARKS, LIST_LINE, OUTCOME, PERSONAL, ASKING, FOLLOW_UP, TASK_LABEL];

/** Whether `text` is one the rule is about. */
export const matches = (rule: Rule, text: string): boolean => rule.pattern.test(text);
