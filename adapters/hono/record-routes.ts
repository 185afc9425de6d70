import type { Service } from '../../src/index.js';
import type { InputName } from './input-schemas.js';
import { param, readJsonBody, readListOptions, readTransferables } from './request.js';
import type { AnswerName, AnyAnswer, Route } from './route.js';

/** A route of a record kind: the service method it calls and the official client's operation id. */
interface RecordOperation {
  readonly service: keyof Service;
  readonly operationId: string;
}

/** One record kind's create, list and delete routes under `/<path>`. */
export interface RecordRoute {
  readonly path: string;
  readonly tag: string;
  /** The body of create, the record and the list, by schema name. */
  readonly seed: InputName;
  readonly one: AnswerName;
  readonly many: AnswerName;
  readonly create: RecordOperation;
  readonly list: RecordOperation;
  readonly delete: RecordOperation;
}

/** The records conversations link to (besides messages), one entry per kind. */
export const RECORD_ROUTES = {
  anchors: {
    path: 'anchors',
    tag: 'Anchors',
    seed: 'SeededAnchor',
    one: 'Anchor',
    many: 'Anchors',
    create: { service: 'createAnchor', operationId: 'anchorsCreateNewAnchor' },
    list: { service: 'listAnchors', operationId: 'anchorsSnapshot' },
    delete: { service: 'deleteAnchor', operationId: 'anchorsDeleteSpecificAnchor' },
  },
  assets: {
    path: 'assets',
    tag: 'Assets',
    seed: 'SeededAsset',
    one: 'Asset',
    many: 'Assets',
    create: { service: 'createAsset', operationId: 'assetsCreateNewAsset' },
    list: { service: 'listAssets', operationId: 'assetsSnapshot' },
    delete: { service: 'deleteAsset', operationId: 'assetsDeleteAsset' },
  },
  websites: {
    path: 'websites',
    tag: 'Websites',
    seed: 'SeededWebsite',
    one: 'Website',
    many: 'Websites',
    create: { service: 'createWebsite', operationId: 'websitesCreateNewWebsite' },
    list: { service: 'listWebsites', operationId: 'websitesSnapshot' },
    delete: { service: 'deleteWebsite', operationId: 'websitesDeleteSpecificWebsite' },
  },
  ranges: {
    path: 'ranges',
    tag: 'Ranges',
    seed: 'SeededRange',
    one: 'Range',
    many: 'Ranges',
    create: { service: 'createRange', operationId: 'rangesCreateNewRange' },
    list: { service: 'listRanges', operationId: 'rangesSnapshot' },
    delete: { service: 'deleteRange', operationId: 'rangesDeleteSpecificRange' },
  },
  workstreamSummaries: {
    path: 'workstream_summaries',
    tag: 'Workstream summaries',
    seed: 'SeededWorkstreamSummary',
    one: 'WorkstreamSummary',
    many: 'WorkstreamSummaries',
    create: { service: 'createWorkstreamSummary', operationId: 'workstreamSummariesCreateNewWorkstreamSummary' },
    list: { service: 'listWorkstreamSummaries', operationId: 'workstreamSummariesSnapshot' },
    delete: { service: 'deleteWorkstreamSummary', operationId: 'workstreamSummariesDeleteSpecificWorkstreamSummary' },
  },
  annotations: {
    path: 'annotations',
    tag: 'Annotations',
    seed: 'SeededAnnotation',
    one: 'Annotation',
    many: 'Annotations',
    create: { service: 'createAnnotation', operationId: 'annotationsCreateNewAnnotation' },
    list: { service: 'listAnnotations', operationId: 'annotationsSnapshot' },
    delete: { service: 'deleteAnnotation', operationId: 'annotationsDeleteSpecificAnnotation' },
  },
} as const satisfies Record<string, RecordRoute>;

/** "an Anchor", "a Website". */
const withArticle = (name: string) => `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;

/**
 * The service method a record route calls, by name. Unlike the other entries' calls, it is not
 * checked against the answer's schema: which method answers which schema is this table's word
 * (the adapter's tests check real answers against the schemas).
 */
const serviceMethod = (service: Service, operation: RecordOperation) =>
  service[operation.service] as unknown as (...args: unknown[]) => Promise<AnyAnswer>;

/** The table's routes of every record kind: create, list and delete. */
export function recordRoutes(): Route[] {
  return Object.values(RECORD_ROUTES).flatMap((kind: RecordRoute): Route[] => {
    return [
      {
        method: 'post',
        path: `/${kind.path}/create`,
        operationId: kind.create.operationId,
        tag: kind.tag,
        summary: `Create ${withArticle(kind.one)}.`,
        query: 'read',
        body: { schema: kind.seed, required: true },
        answer: kind.one,
        errors: ['NOT_FOUND', 'UNPROCESSABLE'],
        call: (service, c) => serviceMethod(service, kind.create)(readJsonBody(c), readTransferables(c)),
      },
      {
        method: 'get',
        path: `/${kind.path}`,
        operationId: kind.list.operationId,
        tag: kind.tag,
        summary: `List the ${kind.tag.toLowerCase()} (paged with limit and offset).`,
        query: 'list',
        answer: kind.many,
        call: (service, c) => serviceMethod(service, kind.list)(readListOptions(c)),
      },
      {
        method: 'post',
        path: `/${kind.path}/:id/delete`,
        operationId: kind.delete.operationId,
        tag: kind.tag,
        summary: `Delete ${withArticle(kind.one)}.`,
        answer: 'none',
        errors: ['NOT_FOUND'],
        call: (service, c) => serviceMethod(service, kind.delete)(param(c, 'id')),
      },
    ];
  });
}
