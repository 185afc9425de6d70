import type { Service } from '../../src/index.js';
import { KINDS, type RecordKindName } from '../../src/kinds/index.js';
import type { KindRoutes } from '../../src/kinds/kind.js';
import type { InputName } from './input-schemas.js';
import { param, readJsonBody, readListOptions, readTransferables } from './request.js';
import type { AnswerName, AnyAnswer, Route } from './route.js';

/** A route of a record kind: the service method it calls and the official client's operation id. */
interface RecordOperation {
  readonly service: keyof Service;
  readonly operationId: string;
}

/** One record kind's create, list and delete routes under `/<path>` (and get under `/<one>/{id}`). */
export interface RecordRoute {
  readonly path: string;
  readonly onePath: string;
  readonly tag: string;
  /** The body of create, the record and the list, by schema name. */
  readonly seed: InputName;
  readonly one: AnswerName;
  readonly many: AnswerName;
  readonly create: RecordOperation;
  readonly list: RecordOperation;
  readonly delete: RecordOperation;
  readonly get?: RecordOperation;
}

/** The kinds with routes of their own. */
type RoutedKind = {
  [C in RecordKindName]: (typeof KINDS)[C] extends { readonly routes: KindRoutes } ? C : never;
}[RecordKindName];
type RoutesOf<C extends RoutedKind> = (typeof KINDS)[C]['routes'];

/**
 * The service methods of a kind's routes, named from its answers: `createAnchor`, `listAnchors`,
 * `deleteAnchor` (and `getAnchor`). Each must be a method of the Service, or this fails to compile.
 */
type MethodsOf<C extends RoutedKind> = {
  create: `create${RoutesOf<C>['answer']['one']}`;
  list: `list${RoutesOf<C>['answer']['many']}`;
  delete: `delete${RoutesOf<C>['answer']['one']}`;
  get: `get${RoutesOf<C>['answer']['one']}`;
};
type Checked<T extends keyof Service> = T;
export type RecordServiceMethod = Checked<
  { [C in RoutedKind]: Exclude<MethodsOf<C>[Exclude<keyof MethodsOf<C>, 'get'>], never> }[RoutedKind]
>;
type RecordAnswer = Checked<never> | { [C in RoutedKind]: RoutesOf<C>['answer'][keyof RoutesOf<C>['answer']] }[RoutedKind];
type RecordSeed = { [C in RoutedKind]: NonNullable<(typeof KINDS)[C]['records']>['seedName'] }[RoutedKind];
// Every kind's answers and seed are schemas of the document.
const _answersNamed: readonly AnswerName[] = [] as RecordAnswer[];
const _seedsNamed: readonly InputName[] = [] as RecordSeed[];

/** The record kinds' routes, one entry per kind with routes: derived from KINDS (src/kinds/). */
export const RECORD_ROUTES = Object.fromEntries(
  Object.values(KINDS).flatMap((kind): [string, RecordRoute][] => {
    if (!('routes' in kind) || !kind.routes || !kind.records) return [];
    const { many, one, tag, answer, operations } = kind.routes as KindRoutes;
    const method = (name: string) => name as keyof Service;
    return [
      [
        kind.collection,
        {
          path: many,
          onePath: one,
          tag,
          seed: kind.records.seedName as InputName,
          one: answer.one as AnswerName,
          many: answer.many as AnswerName,
          create: { service: method(`create${answer.one}`), operationId: operations.create },
          list: { service: method(`list${answer.many}`), operationId: operations.list },
          delete: { service: method(`delete${answer.one}`), operationId: operations.delete },
          ...(operations.get ? { get: { service: method(`get${answer.one}`), operationId: operations.get } } : {}),
        },
      ],
    ];
  }),
) as { readonly [C in RoutedKind]: RecordRoute };

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
    const routes: Route[] = [
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
    if (kind.get) {
      routes.push({
        method: 'get',
        path: `/${kind.onePath}/:id`,
        operationId: kind.get.operationId,
        tag: kind.tag,
        summary: `Read ${withArticle(kind.one)}.`,
        query: 'read',
        answer: kind.one,
        errors: ['NOT_FOUND'],
        call: (service, c) => serviceMethod(service, kind.get!)(param(c, 'id'), readTransferables(c)),
      });
    }
    return routes;
  });
}
