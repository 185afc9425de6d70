/**
 * The answers' types are the outputs of the schemas the OpenAPI document is generated from, and
 * exact: a misspelled field does not compile (no index signature lets it through). A route of the
 * table must call a service method that answers what the route documents. `npm run typecheck`
 * checks each `@ts-expect-error` below: one that no longer errs fails the type check.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { route } from '../../adapters/hono/route.js';
import type { Conversation, ListOf, Model, ModelFailure, Reference, ReferenceList } from '../../src/index.js';
import type { answerSchemas } from '../../src/schemas/answers.js';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';

/** Reads that must not compile. */
function misspelled(conversation: Conversation, model: Model) {
  return [
    // @ts-expect-error: a conversation has `name`, not `nmae`.
    () => conversation.nmae,
    // @ts-expect-error: a message reference's `reference` is a message, which has no `title`.
    () => conversation.messages.iterable[0]?.reference?.title,
    // @ts-expect-error: a model failure is `{ reason, at }`.
    () => model.loadFailure?.message,
  ];
}

/** Table entries that must not compile: each calls a method that answers something else than its `answer`. */
function mismatched() {
  return [
    route({
      method: 'get',
      path: '/models',
      operationId: 'x',
      tag: 'x',
      summary: 'x',
      answer: 'Model',
      // @ts-expect-error: listModels answers a list of models, not one.
      call: (service) => service.listModels(),
    }),
    route({
      method: 'post',
      path: '/models/unload',
      operationId: 'x',
      tag: 'x',
      summary: 'x',
      answer: 'Models',
      // @ts-expect-error: unloadModels answers nothing (204), not a list.
      call: (service) => service.unloadModels(),
    }),
  ];
}

describe('answer types', () => {
  it('are the outputs of the answer schemas', async () => {
    expectTypeOf<Conversation>().toEqualTypeOf<z.output<typeof answerSchemas.Conversation>>();
    expectTypeOf<ListOf<Model>>().toEqualTypeOf<z.output<typeof answerSchemas.Models>>();
    expectTypeOf<ModelFailure>().toEqualTypeOf<{ reason: string; at: string }>();
    expectTypeOf<ReferenceList<Conversation>['iterable'][number]>().toEqualTypeOf<Reference<Conversation>>();
    expectTypeOf<Reference<Conversation>['reference']>().toEqualTypeOf<Conversation | undefined>();

    const { service } = await serviceForTest();
    const conversation = await conversationWith(service, said('USER', 'hello'));
    expect(mismatched()).toHaveLength(2);
    for (const read of misspelled(conversation, (await service.listModels()).iterable[0]!)) expect(read()).toBeUndefined();
  });
});
