import type { ErrorCode } from '../../src/index.js';
import { KINDS } from '../../src/kinds/index.js';
import { LINK, LINK_KINDS, type Link, type LinkableName, type LinkKind, type LinkRoute } from '../../src/links.js';
import { param } from './request.js';
import { type Route, route } from './route.js';

/** Where one of the conversation's link kinds lives under `/conversation/{conversation}/`, and its verbs. */
export interface ConversationLinkRoute {
  readonly path: string;
  /** How the summaries name this kind: "an anchor". */
  readonly label: string;
  /** The verbs that link a record, each with the official client's operation id. */
  readonly associate: Readonly<Record<string, string>>;
  /** The verbs that unlink one, likewise. */
  readonly disassociate: Readonly<Record<string, string>>;
}

/** "an anchor", "a workstream summary". */
const withArticle = (name: string) => `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;

/** The client's disassociate operation of an associate one. */
const disassociateOperation = (operation: string) => operation.replace('Associate', 'Disassociate');

/** A route's verbs: `associate`, and `disassociate` (with the spec's older `delete` where it has one). */
const verbsOf = (linkRoute: LinkRoute) => ({
  associate: { associate: linkRoute.operation },
  disassociate: {
    ...(linkRoute.deleteOperation ? { delete: linkRoute.deleteOperation } : {}),
    disassociate: disassociateOperation(linkRoute.operation),
  },
});

/**
 * The conversation's link routes by the links' short names (`anchor`): derived from LINK (src/links.ts).
 * Anchors and assets accept both the spec's `delete` and the newer client's `disassociate`.
 */
export const LINK_ROUTES: Readonly<Record<LinkKind, ConversationLinkRoute>> = Object.fromEntries(
  (Object.keys(LINK_KINDS) as LinkKind[]).map((kind) => {
    const linkRoute = (LINK_KINDS[kind].relation.routes?.a ?? [])[0]!;
    const path = linkRoute.path.replace(/^\/conversation\/\{conversation\}\//, '').replace(/\/\{verb\}\/\{\w+\}$/, '');
    const label = kind.startsWith('grounding') ? `a grounding ${LINK_KINDS[kind].resource}` : withArticle(LINK_KINDS[kind].resource);
    return [kind, { path, label, ...verbsOf(linkRoute) }];
  }),
) as unknown as Record<LinkKind, ConversationLinkRoute>;

/** Where a message may be damaged on disk: linking it rewrites it, which it cannot be. */
const errorsOf = (link: Link): ErrorCode[] => {
  const errors: ErrorCode[] = ['NOT_FOUND'];
  if (link.a.collection === 'messages' || link.b.collection === 'messages') errors.push('DATA_DAMAGED');
  if (link.coverage) errors.push('UNPROCESSABLE');
  return errors;
};

/**
 * Every link route of the client, from LINK: for each link, the routes from side a's record and
 * those from side b's (`/tag/{tag}/messages/associate/{message}` links the same two records as
 * `/message/{message}/tags/associate/{tag}`), each verb answering 204.
 */
export function linkRoutes(): Route[] {
  const routes: Route[] = [];
  for (const [name, link] of Object.entries(LINK) as [LinkableName, Link][]) {
    for (const side of ['a', 'b'] as const) {
      for (const linkRoute of link.routes?.[side] ?? []) {
        const [, first, second] = /\{(\w+)\}\/.*\{verb\}\/\{(\w+)\}$/.exec(linkRoute.path)!;
        const own = KINDS[link[side].collection].resource;
        const other = KINDS[link[side === 'a' ? 'b' : 'a'].collection].resource;
        const tag = `${own[0]!.toUpperCase()}${own.slice(1)} links`;
        const { associate, disassociate } = verbsOf(linkRoute);
        for (const [verbs, linking] of [
          [associate, true],
          [disassociate, false],
        ] as const) {
          for (const [verb, operationId] of Object.entries(verbs)) {
            routes.push(
              route({
                method: 'post',
                path: linkRoute.path.replace('{verb}', verb).replace(/\{(\w+)\}/g, ':$1'),
                operationId,
                tag,
                summary: `${linking ? 'Link' : 'Unlink'} ${withArticle(other)} ${linking ? 'to' : 'from'} ${withArticle(own)}${verb === 'delete' ? ' (the older name of disassociate)' : ''}.`,
                answer: 'none',
                errors: errorsOf(link),
                call: (service, c) => {
                  const [a, b] = side === 'a' ? [param(c, first!), param(c, second!)] : [param(c, second!), param(c, first!)];
                  return linking ? service.associate(name, a, b) : service.disassociate(name, a, b);
                },
              }),
            );
          }
        }
      }
    }
  }
  return routes;
}
