import { expect } from 'vitest';
import type { CollectionName, Repository, Service } from '../../src/index.js';
import { KINDS } from '../../src/kinds/index.js';
import { LINK, type Link, type LinkableName } from '../../src/links.js';
import { COVERAGE, RELATIONS, type RelationEnd } from '../../src/relations.js';
import { conversationWith, said, seeds } from './service.js';

/** Every link associate may change, by name. */
export const LINKABLE = (Object.entries(LINK) as [LinkableName, Link][]).filter(([, link]) => !link.fixed);

/** A new record of `collection`, made through the service; answers its id. */
export async function createOf(service: Service, collection: CollectionName): Promise<string> {
  switch (collection) {
    case 'conversations':
      return (await conversationWith(service, said('USER', 'hello'))).id;
    case 'messages':
      return (await conversationWith(service, said('USER', 'a message to link'))).messages.iterable[0]!.id;
    case 'annotations':
      return (await service.createAnnotation(seeds.annotation)).id;
    case 'anchors':
      return (await service.createAnchor(seeds.anchor)).id;
    case 'assets':
      return (await service.createAsset(seeds.asset)).id;
    case 'websites':
      return (await service.createWebsite(seeds.website)).id;
    case 'workstreamSummaries':
      return (await service.createWorkstreamSummary(seeds.workstreamSummary)).id;
    case 'ranges':
      return (await service.createRange(seeds.range)).id;
    case 'tags':
      return (await service.createTag(seeds.tag)).id;
    case 'persons':
      return (await service.createPerson(seeds.person)).id;
    case 'workstreamEvents':
      return (await service.createWorkstreamEvent(seeds.workstreamEvent)).id;
    case 'sources':
      return (await service.createWorkstreamPatternEngineSource(seeds.workstreamPatternEngineSource)).id;
    case 'models':
    case 'trash':
      throw new Error(`${collection} have no links`);
  }
}

/** Deletes a record of `collection` through the service. */
export function deleteOf(service: Service, collection: CollectionName, id: string): Promise<void> {
  const remove: Record<Exclude<CollectionName, 'models' | 'trash'>, (id: string) => Promise<void>> = {
    conversations: service.deleteConversation,
    messages: service.deleteMessage,
    annotations: service.deleteAnnotation,
    anchors: service.deleteAnchor,
    assets: service.deleteAsset,
    websites: service.deleteWebsite,
    workstreamSummaries: service.deleteWorkstreamSummary,
    ranges: service.deleteRange,
    tags: service.deleteTag,
    persons: service.deletePerson,
    workstreamEvents: service.deleteWorkstreamEvent,
    sources: service.deleteWorkstreamPatternEngineSource,
  };
  return remove[collection as Exclude<CollectionName, 'models' | 'trash'>](id);
}

/** The ids `end.field` of a stored record names. */
export async function idsAt(repository: Repository, end: RelationEnd, id: string): Promise<string[]> {
  const record = (await repository.read((view) => view.get(end.collection, id))) as Record<string, unknown> | undefined;
  expect(record, `${end.collection} ${id}`).toBeDefined();
  const value = record![end.field];
  return Array.isArray(value) ? (value as string[]) : typeof value === 'string' && value !== '' ? [value] : [];
}

/**
 * The record as the service answers it (what a client reads): a message from its conversation's
 * page, a conversation whole, the others from their list.
 */
export async function renderedOf(service: Service, collection: CollectionName, id: string): Promise<Record<string, any>> {
  const find = (list: { iterable: { id: string }[] }) => list.iterable.find((item) => item.id === id) as Record<string, any>;
  switch (collection) {
    case 'conversations':
      return service.getConversation(id);
    case 'messages': {
      for (const conversation of (await service.listConversations()).iterable) {
        const found = find(await service.listConversationMessages(conversation.id));
        if (found) return found;
      }
      throw new Error(`no message ${id}`);
    }
    default: {
      const lists: Partial<Record<CollectionName, () => Promise<{ iterable: { id: string }[] }>>> = {
        annotations: service.listAnnotations,
        anchors: service.listAnchors,
        assets: service.listAssets,
        websites: service.listWebsites,
        workstreamSummaries: service.listWorkstreamSummaries,
        ranges: service.listRanges,
        tags: service.listTags,
        persons: service.listPersons,
        workstreamEvents: service.listWorkstreamEvents,
        sources: service.listWorkstreamPatternEngineSources,
      };
      return find(await lists[collection]!());
    }
  }
}

/** The ids a record's answer lists where `end` shows on the wire (undefined where it does not show generically). */
export async function wireIds(service: Service, end: RelationEnd, id: string): Promise<string[] | undefined> {
  if (!end.wire) return undefined;
  const rendered = await renderedOf(service, end.collection, id);
  return (rendered[end.wire]?.iterable ?? []).map((item: { id: string }) => item.id);
}

/** Every stored id that names a record which does not exist: by collection, record and field. */
export async function danglingIds(repository: Repository): Promise<string[]> {
  const found: string[] = [];
  const ends: [RelationEnd, RelationEnd][] = RELATIONS.flatMap((link): [RelationEnd, RelationEnd][] => [
    [link.a, link.b],
    [link.b, link.a],
  ]);
  ends.push([COVERAGE, LINK.messageAnnotations.a]);
  await repository.read(async (view) => {
    for (const [end, other] of ends) {
      for (const record of (await view.list(end.collection)).records as unknown as readonly Record<string, unknown>[]) {
        const value = record[end.field];
        const ids = Array.isArray(value) ? (value as string[]) : typeof value === 'string' && value !== '' ? [value] : [];
        const targets = await view.getMany(other.collection, ids);
        ids.forEach((target, i) => {
          if (!targets[i]) found.push(`${end.collection} ${String(record.id)}.${end.field} names ${other.collection} ${target}`);
        });
      }
    }
  });
  return found;
}

/** The kinds that are a side of some link. */
export const LINKED_KINDS = [...new Set(RELATIONS.flatMap((link) => [link.a.collection, link.b.collection]))].filter(
  (collection) => KINDS[collection] !== undefined,
);
