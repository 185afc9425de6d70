import { z } from 'zod';
import { boundedArray, ignoredField, timestampSchema } from './common.js';

/** Most characters of one query. */
export const MAX_QUERY_CHARS = 1_000;
/** Most engines in one input (nested ones included), and most levels of nested `operations`. */
export const MAX_ENGINES = 16;
export const MAX_ENGINE_DEPTH = 4;

/** The API's AnonymousTemporalRange: from and to, both inclusive (`between` and `continuous` are accepted and ignored). */
const timeRangeSchema = z.strictObject({
  schema: ignoredField,
  from: timestampSchema.optional(),
  to: timestampSchema.optional(),
  between: ignoredField,
  continuous: ignoredField,
});

/** The API's TemporalSearchOptions: records created, or updated, within a range. */
const temporalSchema = z.strictObject({
  schema: ignoredField,
  created: timeRangeSchema.optional(),
  updated: timeRangeSchema.optional(),
});

/** The API's FullTextSearchOptions: `exact` keeps only records that hold the query verbatim; `similarity` is the lowest similarity kept. */
const fullTextSchema = z.strictObject({
  schema: ignoredField,
  similarity: z.number().min(0).max(1).nullable().optional(),
  exact: z.boolean().optional(),
});

/** The API's EmbeddingsSearchOptions: rank by meaning (the embedding `type` is the server's to choose). */
const embeddingsSchema = z.strictObject({
  schema: ignoredField,
  type: ignoredField,
  similarity: z.number().min(0).max(1).optional(),
});

/** The API's SearchEngine: a query and how to run it, or `operations`, engines combined. */
export type SearchEngineInput = {
  schema?: undefined;
  query?: string | undefined;
  embeddings?: z.output<typeof embeddingsSchema> | undefined;
  full_text?: z.output<typeof fullTextSchema> | undefined;
  temporal?: z.output<typeof temporalSchema> | undefined;
  workstream?: undefined;
  operations?: SearchEnginesInput | undefined;
};

/** The API's SearchEngines: engines, combined by `type` (AND: every engine; OR, the default: any). */
export type SearchEnginesInput = {
  schema?: undefined;
  iterable: SearchEngineInput[];
  type?: 'UNKNOWN' | 'AND' | 'OR' | undefined;
};

/**
 * Engines nest through `operations`; the schema is written out {@link MAX_ENGINE_DEPTH} levels
 * deep rather than recursive, so a body cannot nest without bound and the document stays plain.
 */
function enginesSchema(depth: number): z.ZodType<SearchEnginesInput> {
  const operations =
    depth + 1 < MAX_ENGINE_DEPTH
      ? enginesSchema(depth + 1).optional()
      : z
          .unknown()
          .refine((value) => value === undefined, `must not nest: engines nest at most ${MAX_ENGINE_DEPTH} levels deep`)
          .optional();
  const engine = z.strictObject({
    schema: ignoredField,
    query: z.string().max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`).optional(),
    embeddings: embeddingsSchema.optional(),
    full_text: fullTextSchema.optional(),
    temporal: temporalSchema.optional(),
    workstream: ignoredField,
    operations,
  });
  return z.strictObject({
    schema: ignoredField,
    iterable: boundedArray(engine, MAX_ENGINES),
    type: z.enum(['UNKNOWN', 'AND', 'OR']).optional(),
  }) as z.ZodType<SearchEnginesInput>;
}

export const searchEnginesSchema = enginesSchema(0);

/** Body of the three search routes: the API's SearchInput, of at most {@link MAX_ENGINES} engines in all. */
export const searchInputSchema = z
  .strictObject({
    schema: ignoredField,
    engines: searchEnginesSchema,
  })
  .superRefine((input, ctx) => {
    const count = (engines: SearchEnginesInput): number =>
      engines.iterable.reduce((sum, engine) => sum + 1 + (engine.operations ? count(engine.operations) : 0), 0);
    const engines = count(input.engines);
    if (engines > MAX_ENGINES) {
      // Over a limit, as a list over its own: 413 PAYLOAD_TOO_LARGE.
      ctx.addIssue({
        code: 'too_big',
        origin: 'array',
        maximum: MAX_ENGINES,
        inclusive: true,
        path: ['engines'],
        message: `must hold at most ${MAX_ENGINES} engines in all, nested ones included (not ${engines})`,
      });
    }
  });
