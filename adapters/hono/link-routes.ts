import { LINK_KINDS, type LinkKind } from '../../src/index.js';
import { param } from './request.js';
import { type Route, route } from './route.js';

/** Where one link kind lives under `/conversation/{conversation}/`, and its verbs. */
export interface LinkRoute {
  readonly path: string;
  /** How the summaries name this kind: "an anchor". */
  readonly label: string;
  /** The verbs that link a record, each with the official client's operation id. */
  readonly associate: Readonly<Record<string, string>>;
  /** The verbs that unlink one, likewise. */
  readonly disassociate: Readonly<Record<string, string>>;
}

/**
 * The link routes, one entry per link kind. Anchors and assets accept both the spec's `delete`
 * and the newer client's `disassociate`.
 */
export const LINK_ROUTES: Readonly<Record<LinkKind, LinkRoute>> = {
  anchor: {
    path: 'anchors',
    label: 'an anchor',
    associate: { associate: 'conversationAssociateAnchor' },
    disassociate: { delete: 'conversationDeleteAnchor', disassociate: 'conversationDisassociateAnchor' },
  },
  asset: {
    path: 'assets',
    label: 'an asset',
    associate: { associate: 'conversationAssociateAsset' },
    disassociate: { delete: 'conversationDeleteAsset', disassociate: 'conversationDisassociateAsset' },
  },
  website: {
    path: 'websites',
    label: 'a website',
    associate: { associate: 'conversationAssociateWebsite' },
    disassociate: { disassociate: 'conversationDisassociateWebsite' },
  },
  workstreamSummary: {
    path: 'workstream_summaries',
    label: 'a workstream summary',
    associate: { associate: 'conversationAssociateWorkstreamSummary' },
    disassociate: { disassociate: 'conversationDisassociateWorkstreamSummary' },
  },
  groundingRange: {
    path: 'grounding/temporal_range/workstreams',
    label: 'a grounding range (temporal workstreams)',
    associate: { associate: 'conversationAssociateGroundingTemporalRangeWorkstream' },
    disassociate: { disassociate: 'conversationDisassociateGroundingTemporalRangeWorkstream' },
  },
  groundingMessage: {
    path: 'grounding/messages',
    label: 'a grounding message',
    associate: { associate: 'conversationGroundingMessagesAssociateMessage' },
    disassociate: { disassociate: 'conversationGroundingMessagesDisassociateMessage' },
  },
};

/** The table's routes of every link kind: one per verb, each answering 204. */
export function linkRoutes(): Route[] {
  const routes: Route[] = [];
  for (const kind of Object.keys(LINK_KINDS) as LinkKind[]) {
    const { path, label, associate, disassociate } = LINK_ROUTES[kind];
    for (const [verbs, linking] of [
      [associate, true],
      [disassociate, false],
    ] as const) {
      for (const [verb, operationId] of Object.entries(verbs)) {
        routes.push(
          route({
            method: 'post',
            path: `/conversation/:conversation/${path}/${verb}/:target`,
            operationId,
            tag: 'Conversation links',
            summary: `${linking ? 'Link' : 'Unlink'} ${label} ${linking ? 'to' : 'from'} a conversation${verb === 'delete' ? ' (the older name of disassociate)' : ''}.`,
            answer: 'none',
            // A message damaged on disk cannot be linked or unlinked (its record is rewritten).
            errors: kind === 'groundingMessage' ? ['NOT_FOUND', 'DATA_DAMAGED'] : ['NOT_FOUND'],
            call: linking
              ? (service, c) => service.associate(kind, param(c, 'conversation'), param(c, 'target'))
              : (service, c) => service.disassociate(kind, param(c, 'conversation'), param(c, 'target')),
          }),
        );
      }
    }
  }
  return routes;
}
