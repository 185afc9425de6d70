import type { BaseRecord } from '../records.js';
import { renderWebsite } from '../render/records.js';
import { seededWebsiteSchema } from '../schemas/seeds.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface WebsiteRecord extends BaseRecord {
  readonly url: string;
  readonly name: string;
  readonly mechanism?: string;
  readonly conversations: readonly string[];
  /** Links added by associate (src/links.ts): absent until the first. */
  readonly messages?: readonly string[];
  readonly annotations?: readonly string[];
}

export const websiteKind = defineKind<WebsiteRecord>()({
  collection: 'websites',
  resource: 'website',
  required: { ...STAMPED, url: FIELD.text, name: FIELD.text, conversations: FIELD.ids },
  records: recordOperations<WebsiteRecord>()({
    seedName: 'SeededWebsite',
    seed: seededWebsiteSchema,
    build: ({ conversation: _c, ...seed }, context) => ({ ...seed, ...stamps(context), conversations: [] }),
    render: (record) => renderWebsite(record),
    conversationOf: (seed) => seed.conversation,
    conversationLink: 'conversationWebsites',
  }),
  routes: {
    many: 'websites',
    one: 'website',
    tag: 'Websites',
    answer: { one: 'Website', many: 'Websites' },
    operations: { create: 'websitesCreateNewWebsite', list: 'websitesSnapshot', delete: 'websitesDeleteSpecificWebsite' },
  },
});
