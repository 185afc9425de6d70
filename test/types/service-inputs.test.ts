/**
 * The service's inputs are typed from the zod schemas that check them at run time: misspelled
 * fields and wrong types fail to compile (`npm run typecheck` checks each `@ts-expect-error`
 * below: one that no longer errs fails the type check), and the same inputs are refused when run.
 */
import { describe, expect, it } from 'vitest';
import type { Service } from '../../src/index.js';
import { serviceForTest } from '../helpers/service.js';

/** Calls that must not compile; each is also refused at run time. */
function misspelled(service: Service) {
  return [
    // @ts-expect-error: `typ` is not a field; `type` is missing.
    () => service.createConversation({ typ: 'COPILOT' }),
    // @ts-expect-error: a conversation type is UNKNOWN or COPILOT.
    () => service.createConversation({ type: 'CHAT' }),
    // @ts-expect-error: a website's url is a string.
    () => service.createWebsite({ url: 42, name: 'Docs' }),
    // @ts-expect-error: a message's role is USER, ASSISTANT, SYSTEM or UNKNOWN.
    () => service.createMessage({ role: 'BOT', fragment: {}, conversation: { id: 'c' } }),
    // @ts-expect-error: favorited is true or false.
    () => service.updateConversation({ id: 'c', favorited: 'yes' }),
    // @ts-expect-error: a score increment is a set of booleans.
    () => service.incrementConversationScores('c', { conversation: { reuse: 1 } }),
    // @ts-expect-error: a model needs its version, created, cloud, type and usage.
    () => service.createModel({ name: 'Mine' }),
  ];
}

describe('typed inputs', () => {
  it('refuses at run time what does not compile', async () => {
    const { service } = await serviceForTest();
    for (const call of misspelled(service))
      await expect(call()).rejects.toMatchObject({ code: expect.stringMatching(/INVALID_INPUT|NOT_FOUND/) });
    expect((await service.listConversations()).iterable).toEqual([]);
  });
});
