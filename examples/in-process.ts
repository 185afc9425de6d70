/**
 * The service without HTTP: plain async calls, as an Electron main process (or any Node program)
 * would make them. Data lives in a JSON file under `dataDir`; here a fresh temp folder, removed at
 * the end. Set DATA_DIR to keep it (e.g. DATA_DIR=./data-example).
 *
 *   npx tsx examples/in-process.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createService, isServiceError } from '../src/index.js';

const keep = process.env.DATA_DIR;
const dataDir = keep ?? (await mkdtemp(path.join(tmpdir(), 'cms-in-process-')));
const service = await createService({ dataDir });

try {
  // A conversation with a few messages.
  const created = await service.createConversation({
    type: 'COPILOT',
    messages: [
      { role: 'USER', fragment: { string: { raw: 'How do I debounce a search box in React?' } } },
      {
        role: 'ASSISTANT',
        fragment: {
          string: {
            raw: 'Keep the query in state and update a debounced copy with setTimeout inside useEffect, clearing the timer on cleanup.',
          },
        },
      },
      { role: 'USER', fragment: { string: { raw: 'Can I use a custom hook for the debounce so other inputs reuse it?' } } },
    ],
  });
  console.log(`Created conversation ${created.id} with ${created.messages.iterable.length} messages`);

  // Named by the embedded summarizer from its messages.
  const renamed = await service.renameConversation(created.id);
  console.log(`Renamed to: ${renamed.name}`);

  // Summarized into a SUMMARY annotation linked to the conversation.
  const { annotation } = await service.summarizeConversation(created.id);
  console.log(`Summary annotation: ${annotation.id}`);

  // Linked to a website.
  const website = await service.createWebsite({ url: 'https://react.dev/reference/react/useEffect', name: 'useEffect – React' });
  await service.associateWebsite(created.id, website.id);

  // Read back without transferables: same structure, message text left out.
  const light = await service.getConversation(created.id, { transferables: false });
  const summary = light.annotations?.iterable.find((item) => item.id === annotation.id)?.reference;
  console.log(`Read back: "${light.name}", ${light.messages.iterable.length} messages, ${light.websites?.iterable.length ?? 0} website(s)`);
  console.log(`Summary (${summary?.type}): ${summary?.text}`);
  const texts = light.messages.iterable.filter((item) => item.reference?.fragment?.string?.raw !== undefined).length;
  console.log(`Message texts included without transferables: ${texts}`);

  // The models the service knows.
  const models = await service.listModels();
  for (const model of models.iterable) {
    console.log(`Model: ${model.name} (${model.usage}, custom: ${model.custom === true})`);
  }

  // Errors are ServiceErrors with a transport-neutral code.
  try {
    await service.getConversation('no-such-conversation');
  } catch (error) {
    if (!isServiceError(error)) throw error;
    console.log(`Unknown conversation: ${error.code}`);
  }
} finally {
  await service.close();
  if (!keep) await rm(dataDir, { recursive: true, force: true });
}
