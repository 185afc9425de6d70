import type { AnnotationType, BaseRecord, Score } from '../records.js';
import { renderAnnotation } from '../render/conversation.js';
import { seededAnnotationSchema } from '../schemas/seeds.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface AnnotationRecord extends BaseRecord {
  readonly type: AnnotationType;
  readonly text: string;
  readonly mechanism?: string;
  readonly favorited?: boolean;
  readonly model?: { readonly id: string };
  /** The conversation this annotation belongs to, if any. */
  readonly conversation?: string;
  /** For summaries: the messages the text covers. */
  readonly messages: readonly string[];
  readonly score?: Score;
  /** Links added by associate (src/links.ts): absent until the first. */
  readonly anchors?: readonly string[];
  readonly assets?: readonly string[];
  readonly persons?: readonly string[];
  readonly tags?: readonly string[];
  readonly websites?: readonly string[];
  readonly workstreamEvents?: readonly string[];
  readonly summaries?: readonly string[];
}

export const annotationKind = defineKind<AnnotationRecord>()({
  collection: 'annotations',
  resource: 'annotation',
  required: { ...STAMPED, type: FIELD.text, text: FIELD.text, messages: FIELD.ids },
  records: recordOperations<AnnotationRecord>()({
    seedName: 'SeededAnnotation',
    seed: seededAnnotationSchema,
    build: ({ conversation: _c, model, ...seed }, context) => ({
      ...seed,
      ...(model ? { model: { id: model } } : {}),
      ...stamps(context),
      messages: [],
    }),
    render: (record) => renderAnnotation(record),
    conversationOf: (seed) => seed.conversation,
    conversationLink: 'conversationAnnotations',
  }),
  routes: {
    many: 'annotations',
    one: 'annotation',
    tag: 'Annotations',
    answer: { one: 'Annotation', many: 'Annotations' },
    operations: { create: 'annotationsCreateNewAnnotation', list: 'annotationsSnapshot', delete: 'annotationsDeleteSpecificAnnotation' },
  },
});
