import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Service } from '../../src/index.js';
import { seededModel } from '../helpers/service.js';

/**
 * Fills a service with what an export must carry: conversations with messages, a summary, an
 * anchor shared by two conversations, a tag on a message, a grounding message from another
 * conversation, a website and a custom model. Answers the conversations' ids.
 */
export async function populate(service: Service, conversations = 3): Promise<string[]> {
  const ids: string[] = [];
  const anchor = await service.createAnchor({ type: 'FILE', fullpath: '/home/me/notes.md' });
  const tag = await service.createTag({ text: 'garden' });
  const model = await service.createModel(seededModel({ name: 'my-model', unique: 'my-model' }));
  for (let i = 0; i < conversations; i++) {
    const conversation = await service.createConversation({
      type: 'COPILOT',
      name: `Conversation ${i}`,
      model: { id: model.id },
      messages: [
        { role: 'USER', fragment: { string: { raw: `Question ${i}: how?` } } },
        { role: 'ASSISTANT', fragment: { string: { raw: `Answer ${i}:\n\n\`\`\`ts\nconst x = ${i};\n\`\`\`` } } },
      ],
    } as never);
    ids.push(conversation.id);
    await service.associateAnchor(conversation.id, anchor.id);
    await service.summarizeConversation(conversation.id);
  }
  const messages = await service.listConversationMessages(ids[0]!);
  await service.associate('messageTags', messages.iterable[0]!.id, tag.id);
  if (ids.length > 1) await service.associateGroundingMessage(ids[1]!, messages.iterable[1]!.id);
  const website = await service.createWebsite({ url: 'https://example.com/garden', name: 'Garden' } as never);
  await service.associateWebsite(ids[0]!, website.id);
  return ids;
}

/** Writes the service's export to `file`. */
export async function exportTo(
  service: Service,
  file: string,
  options: Parameters<Service['exportConversations']>[0] = { format: 'json' },
): Promise<void> {
  await pipeline(Readable.from(service.exportConversations(options)), createWriteStream(file));
}

/** Every conversation's GET answer, by id. */
export async function answers(service: Service): Promise<Map<string, string>> {
  const { iterable } = await service.listConversationIdentifiers();
  const out = new Map<string, string>();
  for (const { id } of iterable) out.set(id, await service.getConversationJson(id));
  return out;
}
