import type { Role } from './conversation.js';
import { isBaseVerb } from './grammar.js';
import { thirdPerson } from './inflect.js';
import { retext, type Token } from './tokens.js';

/** How the observer names the two parties, lower-cased for use inside a sentence. */
export interface Referents {
  readonly user: string;
  readonly assistant: string;
  /** True when the assistant role is a person (custom speaker names): its `I` becomes `they`, not `it`. */
  readonly assistantIsPerson?: boolean;
}

interface Replacement {
  readonly text: string;
  /** The replacement is a third-person singular subject: following verbs need `-s`. */
  readonly singular?: boolean;
  /** The replaced word was `I`: `am`/`was` after it become `are`/`were`. */
  readonly fromI?: boolean;
}

const OBJECT_AFTER = new Set(['VERB', 'ADP']);

function replacement(t: Token, role: Role, names: Referents, subject: boolean): Replacement | undefined {
  const self = role === 'ASSISTANT' && !names.assistantIsPerson;
  switch (t.lower) {
    case 'i':
      return self ? { text: 'it', singular: true } : { text: 'they', fromI: true };
    case 'me':
      return { text: self ? 'it' : 'them' };
    case 'my':
      return { text: self ? 'its' : 'their' };
    case 'mine':
      return { text: self ? 'its own' : 'theirs' };
    case 'myself':
      return { text: self ? 'itself' : 'themselves' };
    case 'we':
      return { text: 'they' };
    case 'us':
      return { text: 'them' };
    case 'our':
      return { text: 'their' };
    case 'ours':
      return { text: 'theirs' };
    case 'ourselves':
      return { text: 'themselves' };
  }
  // `you` is the user when the assistant speaks, and the assistant when the user does.
  if (role === 'ASSISTANT' || role === 'UNKNOWN') {
    switch (t.lower) {
      case 'you':
        return { text: subject ? 'they' : 'them' };
      case 'your':
        return { text: 'their' };
      case 'yours':
        return { text: 'theirs' };
      case 'yourself':
      case 'yourselves':
        return { text: 'themselves' };
    }
    return undefined;
  }
  switch (t.lower) {
    case 'you':
      return { text: names.assistant, singular: subject };
    case 'your':
    case 'yours':
      return { text: `${names.assistant}'s` };
    case 'yourself':
      return { text: 'itself' };
  }
  return undefined;
}

/**
 * Rewrites first and second person into an observer's third person: the user's `I want my tests`
 * becomes `they want their tests`, the assistant's `you should` becomes `they should`, and the
 * user's `can you` becomes `can the assistant`. Verbs right after a changed subject agree with it.
 */
export function shiftPronouns(tokens: readonly Token[], role: Role, names: Referents): Token[] {
  const out = [...tokens];
  for (let i = 0; i < out.length; i += 1) {
    const t = out[i]!;
    const previous = out[i - 1];
    // After a verb or preposition `you` is an object (`help you fix it` → `help them fix it`),
    // unless a verb follows a conjunction the tagger calls a preposition (`after you apply it`).
    const next = out[i + 1];
    const clauseStart = previous?.pos === 'ADP' && (next?.pos === 'VERB' || next?.pos === 'AUX' || next?.pos === 'ADV');
    const subject = !previous || !OBJECT_AFTER.has(previous.pos) || clauseStart;
    const r = replacement(t, role, names, subject);
    if (!r) continue;
    // A name put in for `you` (`Mark`) is a proper noun, so nothing lower-cases it later.
    out[i] = /^[A-Z]/.test(r.text) ? { ...retext(t, r.text), pos: 'PROPN', stop: false } : { ...retext(t, r.text), pos: 'PRON' };
    let v = i + 1;
    while (out[v] && (out[v]!.pos === 'ADV' || out[v]!.lower === 'not') && !isBaseVerb(out[v])) v += 1;
    const verb = out[v];
    if (!verb) continue;
    if (r.fromI) {
      if (verb.lower === 'am') out[v] = retext(verb, 'are');
      else if (verb.lower === 'was') out[v] = retext(verb, 'were');
    } else if (r.singular) {
      const agreed = { am: 'is', are: 'is', were: 'was', have: 'has', do: 'does' }[verb.lower];
      if (agreed) out[v] = retext(verb, agreed);
      else if (verb.pos === 'VERB' && verb.lower === verb.lemma && isBaseVerb(verb)) {
        out[v] = retext(verb, thirdPerson(verb.lower));
      }
    }
  }
  return out;
}
