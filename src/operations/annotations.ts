import type { AnnotationRecord } from '../records.js';
import { renderAnnotation } from '../render/conversation.js';
import { annotationUpdateSchema } from '../schemas/annotation-inputs.js';
import { parseInput } from '../validate.js';
import type { Annotation } from '../wire.js';
import { mustGet, type OperationContext, parseId } from './context.js';

/** One annotation; NOT_FOUND for an unknown id. */
export async function getAnnotation(ctx: OperationContext, annotationId: string): Promise<Annotation> {
  const id = parseId(annotationId, 'annotation id');
  return renderAnnotation(await ctx.repository.read((view) => mustGet(view, 'annotations', id, 'annotation')));
}

/**
 * Applies the mutable fields of an Annotation body (`text`, `type`, `mechanism`, `favorited`,
 * `model`; `null` clears `model`) and bumps `updated`: a summary edited by hand. The new text is
 * searched from then on, and cached answers of its conversation are no longer served.
 */
export async function updateAnnotation(ctx: OperationContext, body: unknown): Promise<Annotation> {
  const { id, ...changes } = parseInput(annotationUpdateSchema, body, 'Annotation');
  const now = ctx.now();
  const annotation = await ctx.repository.transact(async (tx) => {
    const current = await mustGet(tx, 'annotations', id, 'annotation');
    const next: Record<string, unknown> = { ...current, updated: now };
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      if (value === null) delete next[field];
      // A ReferencedModel is kept as `{ id }` alone, as an annotation's seed keeps it.
      else next[field] = field === 'model' ? { id: (value as { id: string }).id } : value;
    }
    const updated = next as unknown as AnnotationRecord;
    tx.put('annotations', updated);
    return updated;
  });
  return renderAnnotation(annotation);
}
