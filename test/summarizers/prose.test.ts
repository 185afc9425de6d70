/** What the summarizer reads of a message's prose (src/summarizers/prose.ts). */
import { describe, expect, it } from 'vitest';
import { cleanProse, DOT } from '../../src/summarizers/prose.js';

describe('cleanProse', () => {
  it('ends a sentence typed without the space after its period', () => {
    expect(cleanProse('It is true.But I feel that I see more.')).toBe('It is true. But I feel that I see more.');
    expect(cleanProse('The trains are not full.We can get them on the day.')).toBe('The trains are not full. We can get them on the day.');
  });

  it('keeps the dots of names and identifiers', () => {
    expect(cleanProse('The default http.Client has no timeout.')).toBe(`The default http${DOT}Client has no timeout.`);
    expect(cleanProse('Use Next.js with console.log.')).toBe(`Use Next${DOT}js with console${DOT}log.`);
    expect(cleanProse('Why does time.Now() change?')).not.toMatch(/time\. Now/);
    expect(cleanProse('It resolves in promise.Then handlers.')).not.toMatch(/promise\. Then/);
  });
});
