/** Every rule table of the chat note is defined by its examples: each must match, or pass, as written. */
import { describe, expect, it } from 'vitest';
import { CHAT_RULES, matches } from '../../src/summarizers/chat-rules.js';

describe.each(CHAT_RULES)('the $name rule ($purpose)', (rule) => {
  it.each(rule.examples.matches)('matches %j', (text) => expect(matches(rule, text)).toBe(true));
  it.each(rule.examples.passes)('passes %j', (text) => expect(matches(rule, text)).toBe(false));
});
