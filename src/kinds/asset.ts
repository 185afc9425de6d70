import type { BaseRecord, Fragment } from '../records.js';
import { renderAsset } from '../render/records.js';
import { seededAssetSchema } from '../schemas/seeds.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface AssetRecord extends BaseRecord {
  readonly name?: string;
  readonly creator: string;
  readonly mechanism: string;
  readonly application?: Readonly<Record<string, unknown>>;
  /** The content the asset was seeded with (transferable data). */
  readonly content?: Fragment;
  /** Id of the asset's one format, stable across renders. */
  readonly format: string;
  readonly conversations: readonly string[];
  /** Links added by associate (src/links.ts): absent until the first. */
  readonly messages?: readonly string[];
  readonly annotations?: readonly string[];
}

export const assetKind = defineKind<AssetRecord>()({
  collection: 'assets',
  resource: 'asset',
  required: { ...STAMPED, creator: FIELD.text, mechanism: FIELD.text, format: FIELD.text, conversations: FIELD.ids },
  records: recordOperations<AssetRecord>()({
    seedName: 'SeededAsset',
    seed: seededAssetSchema,
    build: (seed, context) => ({
      ...stamps(context),
      ...(seed.metadata?.name ? { name: seed.metadata.name } : {}),
      creator: 'local',
      mechanism: 'MANUAL',
      application: seed.application,
      ...(seed.format.fragment ? { content: seed.format.fragment } : {}),
      format: context.newId(),
      conversations: [],
    }),
    render: (record, options) => renderAsset(record, options),
  }),
  routes: {
    many: 'assets',
    one: 'asset',
    tag: 'Assets',
    answer: { one: 'Asset', many: 'Assets' },
    operations: { create: 'assetsCreateNewAsset', list: 'assetsSnapshot', delete: 'assetsDeleteAsset' },
  },
});
