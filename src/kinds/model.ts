import type { Score, Timestamp } from '../records.js';
import { defineKind, FIELD } from './kind.js';

/** The API's Model, stored as is (it has no links). */
export interface ModelRecord {
  readonly id: string;
  readonly version: string;
  readonly created: Timestamp;
  readonly name: string;
  readonly cloud: boolean;
  readonly type: string;
  readonly usage: string;
  readonly description?: string;
  readonly bytes?: { readonly value: number; readonly readable: string };
  readonly ram?: { readonly value: number; readonly readable: string };
  readonly quantization?: string;
  readonly foundation?: string;
  readonly downloaded?: boolean;
  readonly loaded?: boolean;
  readonly downloading?: boolean;
  readonly unique?: string;
  readonly parameters?: number;
  readonly provider?: string;
  readonly cpu?: boolean;
  readonly maxTokens?: Readonly<Record<string, unknown>>;
  readonly custom?: boolean;
  readonly capabilities?: Readonly<Record<string, unknown>>;
  readonly score?: Score;
}

/** Models: created, changed and deleted by the model operations (src/operations/models.ts). */
export const modelKind = defineKind<ModelRecord>()({
  collection: 'models',
  resource: 'model',
  required: {
    id: FIELD.text,
    version: FIELD.text,
    created: FIELD.stamp,
    name: FIELD.text,
    cloud: FIELD.flag,
    type: FIELD.text,
    usage: FIELD.text,
  },
});
