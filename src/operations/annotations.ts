import { renderAnnotation } from '../render/conversation.js';
import { annotationUpdateSchema } from '../schemas/annotation-inputs.js';
import { parseInput } from '../validate.js';
import type { Annotation } from '../wire.js';
import { mustGet, type OperationContext, parseId } from './context.js';
import { withChanges } from './field-changes.js';

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
    // A ReferencedModel is kept as `{ id }` alone, as an annotation's seed keeps it.
    const updated = withChanges(current, changes, now, (field, value) =>
      field === 'model' ? { id: (value as { id: string }).id } : value,
    );
    tx.put('annotations', updated);
    return updated;
  });
  return renderAnnotation(annotation);
}
