import type { Service } from '../../src/index.js';
import { conversationWith, said, seeds } from './service.js';

export const START = Date.parse('2026-03-01T00:00:00.000Z');
export const DAY = 24 * 60 * 60 * 1000;

/** A clock that steps a second per reading, and can be moved on. */
export function movableClock() {
  let now = START;
  return { clock: () => new Date((now += 1000)), advance: (ms: number) => (now += ms) };
}

/** A conversation linked to a record of every kind it can be, from itself, its messages and its annotations. */
export async function linkedConversation(service: Service) {
  const conversation = await service.createConversation({
    type: 'COPILOT',
    name: 'Garden plans',
    messages: [said('USER', 'When should the tomatoes go in?'), said('ASSISTANT', 'After the last frost, in May.')],
    anchors: [seeds.anchor],
  });
  const [first, second] = conversation.messages.iterable.map((message) => message.id) as [string, string];
  const other = await conversationWith(service, said('USER', 'Another conversation'));
  const website = await service.createWebsite(seeds.website);
  const asset = await service.createAsset(seeds.asset);
  const range = await service.createRange(seeds.range);
  const summary = await service.createWorkstreamSummary(seeds.workstreamSummary);
  const tag = await service.createTag(seeds.tag);
  const person = await service.createPerson(seeds.person);
  const source = await service.createWorkstreamPatternEngineSource(seeds.workstreamPatternEngineSource);
  const annotation = await service.createAnnotation({ ...seeds.annotation, conversation: conversation.id });
  await service.associateWebsite(conversation.id, website.id);
  await service.associateAsset(conversation.id, asset.id);
  await service.associate('conversationRanges', conversation.id, range.id);
  await service.associateWorkstreamSummary(conversation.id, summary.id);
  await service.associate('conversationSources', conversation.id, source.id);
  await service.associate('conversationGroundingMessages', conversation.id, other.messages.iterable[0]!.id);
  await service.associate('messageTags', first, tag.id);
  await service.associate('messagePersons', second, person.id);
  await service.associate('messageMessages', first, other.messages.iterable[0]!.id);
  await service.associate('annotationTags', annotation.id, tag.id);
  await service.associate('messageAnnotations', first, annotation.id);
  await service.summarizeConversation(conversation.id);
  return { id: conversation.id, first, second, other: other.id, website, tag, person, annotation: annotation.id };
}
