import type { Context } from 'hono';
import type { z } from 'zod';
import type { ErrorCode, JsonPage, Service } from '../../src/index.js';
import type { answerSchemas } from '../../src/schemas/answers.js';
import type { RouterEnv, StatusOverrides } from './errors.js';
import type { InputName } from './input-schemas.js';

/** The name of an answer's schema in `src/schemas/answers.ts` (and in the document). */
export type AnswerName = keyof typeof answerSchemas;

/** 200 with the JSON of this schema, 204 with no body (`none`), or 200 text/plain (`text`). */
export type AnswerKind = AnswerName | 'none' | 'text';

/** What a route's `call` resolves to for its answer: the schema's output type, so the document cannot promise what the service does not answer. */
export type AnswerOf<A extends AnswerKind, Rendered extends boolean> = A extends 'none'
  ? // biome-ignore lint/suspicious/noConfusingVoidType: what the service's methods that answer nothing resolve to.
    void
  : A extends 'text'
    ? string
    : A extends AnswerName
      ? Rendered extends true
        ? JsonPage
        : z.output<(typeof answerSchemas)[A]>
      : never;

/** Any answer a route may give: what the widened {@link Route}'s `call` resolves to. */
export type AnyAnswer = AnswerOf<AnswerKind, boolean>;

/**
 * One route of the router, declared once: the router mounts it, the OpenAPI document describes it.
 * `path` is written as Hono writes it (`:param`); every path parameter is a record id.
 */
export interface Route<A extends AnswerKind = AnswerKind, Rendered extends boolean = boolean> {
  readonly method: 'get' | 'post';
  readonly path: string;
  /** The official client's method name, where the client has the operation. */
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  /** Query parameters: `read` = transferables; `list` = transferables, limit, offset (and a `Link` header to the next page). */
  readonly query?: 'read' | 'list';
  /** The JSON body; optional on the wire (an empty body means "no input") unless `required`. */
  readonly body?: { readonly schema: InputName; readonly required?: boolean };
  readonly answer: A;
  /** The service renders this answer's JSON itself (see {@link JsonPage}: its text, and for a page the offset of the next). */
  readonly rendered?: Rendered;
  /** Errors this route answers besides the ones every route can (invalid input, token, origin; body limits for POST). */
  readonly errors?: readonly ErrorCode[];
  /** Statuses this route answers for some codes instead of the usual ones (the API's quirks). */
  readonly statuses?: StatusOverrides;
  /**
   * How the route calls the service. Its input is read from the request here (path parameters,
   * query, body); the answer is made by the router from `answer` and `query`.
   */
  readonly call: (service: Service, c: Context<RouterEnv>) => Promise<AnswerOf<A, Rendered>> | AnswerOf<A, Rendered>;
}

/**
 * A table entry, checked: `call` must resolve to what `answer` names. The generics are inferred
 * from the entry; the result is widened to a plain {@link Route} for the table.
 */
export const route = <const A extends AnswerKind, const Rendered extends boolean = false>(entry: Route<A, Rendered>): Route => entry;
