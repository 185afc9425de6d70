import type { z } from 'zod';
import type { Timestamp } from '../records.js';
import type { RenderOptions } from '../render/lists.js';

/** A check of one stored field, with what it must be (for the message when it fails). */
export type FieldCheck = readonly [check: (value: unknown) => boolean, what: string];

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a stored field may be: the vocabulary of {@link KindSpec.required}. */
export const FIELD = {
  text: [(value) => typeof value === 'string', 'a string'],
  ids: [(value) => Array.isArray(value) && value.every((id) => typeof id === 'string'), 'a list of ids'],
  stamp: [(value) => isObject(value) && typeof (value as { value?: unknown }).value === 'string', 'a timestamp { value }'],
  object: [isObject, 'an object'],
  flag: [(value) => typeof value === 'boolean', 'true or false'],
  records: [(value) => Array.isArray(value) && value.every(isObject), 'a list of records'],
} as const satisfies Record<string, FieldCheck>;

/** The fields every stored record with an id and its two timestamps has. */
export const STAMPED = { id: FIELD.text, created: FIELD.stamp, updated: FIELD.stamp } as const;

/** What building a record needs besides its seed. */
export interface BuildContext {
  readonly id: string;
  readonly now: Timestamp;
  newId(): string;
}

/**
 * How records of a kind are made and answered by the generic record operations
 * (src/operations/records.ts): the client's Seeded* body, the record built from it, the answer.
 */
export interface RecordOperations<R, S extends z.ZodType = z.ZodType, N extends string = string> {
  /** The client's name of the seed (and of its schema in the OpenAPI document). */
  readonly seedName: N;
  readonly seed: S;
  build(seed: z.output<S>, context: BuildContext): R;
  render(record: R, options: RenderOptions): unknown;
  /** The conversation a seed asks the new record to be linked to (for messages: appended to). */
  conversationOf?(seed: z.output<S>): string | undefined;
  /**
   * The name, in LINK (src/links.ts), of the link to that conversation. A plain string: LINK's
   * types derive from the kinds' (a test checks every name).
   */
  readonly conversationLink?: string;
}

/** A record kind's routes: where the client reaches it, and its operation ids. */
export interface KindRoutes {
  /** `/<many>/create`, `/<many>`, `/<many>/{id}/delete`. */
  readonly many: string;
  /** `/<one>/{id}`: the route that reads one record (only where `get` is set). */
  readonly one: string;
  /** The OpenAPI tag, e.g. "Anchors". */
  readonly tag: string;
  /** The answers' schema names in src/schemas/answers.ts. */
  readonly answer: { readonly one: string; readonly many: string };
  /** The official client's operation ids. */
  readonly operations: { readonly create: string; readonly list: string; readonly delete: string; readonly get?: string };
}

/**
 * One record kind, declared once: its collection, the fields every stored record has (checked when
 * a store opens), and, for kinds the generic operations create, list and delete, how. `R` is the
 * record type (a phantom: it types `Collections`).
 */
export interface KindSpec<C extends string = string, R = unknown> {
  readonly collection: C;
  /** What the record is called in messages ("anchor", "workstream summary"). */
  readonly resource: string;
  /** The fields a stored record must have, and what they must be. */
  readonly required: Readonly<Record<string, FieldCheck>>;
  readonly records?: RecordOperations<R, z.ZodType>;
  readonly routes?: KindRoutes;
  /** Only for the record type. */
  readonly _record?: R;
}

/**
 * Declares a kind of records of type `R`: `defineKind<AnchorRecord>()({ … })`. The two calls let
 * `R` be given while the rest (the collection's name, the routes) is kept as written.
 */
export const defineKind =
  <R>() =>
  <const T extends Omit<KindSpec<string, R>, '_record'>>(spec: T): T & { readonly _record?: R } =>
    spec;

/** Declares how records of type `R` are made from a seed, the seed's type inferred from its schema. */
export const recordOperations =
  <R>() =>
  <S extends z.ZodType, const N extends string>(operations: RecordOperations<R, S, N>): RecordOperations<R, S, N> =>
    operations;

/** The record type a kind declares. */
export type RecordOf<K> = K extends KindSpec<string, infer R> ? R : never;

/** `id`, `created`, `updated` of a new record. */
export const stamps = ({ id, now }: BuildContext) => ({ id, created: now, updated: now });
