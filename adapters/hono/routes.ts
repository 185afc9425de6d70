import type { LinkKind, Service } from '../../src/index.js';

/**
 * Where each link kind lives under `/conversation/{conversation}/`, and the verbs that associate
 * and disassociate it. Anchors and assets accept both the spec's `delete` and the newer client's
 * `disassociate`.
 */
export const LINK_ROUTES: Readonly<Record<LinkKind, { path: string; associate: string[]; disassociate: string[] }>> = {
  anchor: { path: 'anchors', associate: ['associate'], disassociate: ['delete', 'disassociate'] },
  asset: { path: 'assets', associate: ['associate'], disassociate: ['delete', 'disassociate'] },
  website: { path: 'websites', associate: ['associate'], disassociate: ['disassociate'] },
  workstreamSummary: { path: 'workstream_summaries', associate: ['associate'], disassociate: ['disassociate'] },
  groundingRange: { path: 'grounding/temporal_range/workstreams', associate: ['associate'], disassociate: ['disassociate'] },
  groundingMessage: { path: 'grounding/messages', associate: ['associate'], disassociate: ['disassociate'] },
};

/** The path prefix of each record kind's create, list and delete routes. */
export const RECORD_ROUTES = {
  anchors: { path: 'anchors', create: 'createAnchor', list: 'listAnchors', delete: 'deleteAnchor' },
  assets: { path: 'assets', create: 'createAsset', list: 'listAssets', delete: 'deleteAsset' },
  websites: { path: 'websites', create: 'createWebsite', list: 'listWebsites', delete: 'deleteWebsite' },
  ranges: { path: 'ranges', create: 'createRange', list: 'listRanges', delete: 'deleteRange' },
  workstreamSummaries: {
    path: 'workstream_summaries',
    create: 'createWorkstreamSummary',
    list: 'listWorkstreamSummaries',
    delete: 'deleteWorkstreamSummary',
  },
  annotations: { path: 'annotations', create: 'createAnnotation', list: 'listAnnotations', delete: 'deleteAnnotation' },
} as const satisfies Record<string, { path: string; create: keyof Service; list: keyof Service; delete: keyof Service }>;
