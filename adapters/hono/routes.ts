import path from 'node:path';
import { SERVICE_VERSION } from '../../src/index.js';
import { healthText } from './health-text.js';
import { LINK_ROUTES, linkRoutes } from './link-routes.js';
import { messageRoutes } from './message-routes.js';
import { RECORD_ROUTES, recordRoutes } from './record-routes.js';
import { param, readJsonBody, readListOptions, readTransferables } from './request.js';
import { type Route, route } from './route.js';
import { trashRoutes } from './trash-routes.js';

export { LINK_ROUTES, RECORD_ROUTES };

const NOT_FOUND = ['NOT_FOUND'] as const;
const MODEL_ERRORS = ['NOT_FOUND', 'UNPROCESSABLE'] as const;
/** A title or a summary is written from every message it covers: one damaged on disk is its answer. */
const WRITER_ERRORS = [...MODEL_ERRORS, 'DATA_DAMAGED'] as const;

/**
 * Every route of the service, in the order the router mounts them and the document lists them
 * (besides `/openapi.json` and the docs page, see `docs-page.ts`). Adding a route is adding an
 * entry here, or to the link or record kinds' tables.
 */
export const ROUTES: readonly Route[] = [
  // What the official client's WellKnownApi asks: is it up, and which release.
  route({
    method: 'get',
    path: '/.well-known/health',
    operationId: 'getWellKnownHealth',
    tag: 'Well known',
    summary:
      'Is the service up? Answers `ok`; when stored data was found damaged, text that starts with `ok, but stored data is damaged` and names each damaged file.',
    answer: 'text',
    call: async (service) => healthText(await service.health()),
  }),
  route({
    method: 'get',
    path: '/.well-known/version',
    operationId: 'getWellKnownVersion',
    tag: 'Well known',
    summary: "The service's version.",
    answer: 'text',
    call: () => SERVICE_VERSION,
  }),

  // Conversations
  route({
    method: 'post',
    path: '/conversations/create',
    operationId: 'conversationsCreateSpecificConversation',
    tag: 'Conversations',
    summary: 'Create a conversation, with its first messages and links if given.',
    query: 'read',
    body: { schema: 'SeededConversation', required: true },
    answer: 'Conversation',
    errors: ['UNPROCESSABLE'],
    call: (service, c) => service.createConversation(readJsonBody(c), readTransferables(c)),
  }),
  route({
    method: 'post',
    path: '/conversations/create/from_asset/:asset',
    operationId: 'conversationsCreateFromAsset',
    tag: 'Conversations',
    summary: 'Start a conversation grounded in an asset: named as it is, linked to it both ways. No message is written.',
    answer: 'ConversationCreatedOutput',
    errors: NOT_FOUND,
    call: (service, c) => service.createConversationFromAsset(param(c, 'asset')),
  }),
  route({
    method: 'post',
    path: '/conversations/create/from_workstream_summary/:workstream_summary',
    operationId: 'conversationsCreateFromWorkstreamSummary',
    tag: 'Conversations',
    summary: 'Start a conversation grounded in a workstream summary: named as it is, linked to it both ways.',
    answer: 'ConversationCreatedOutput',
    errors: NOT_FOUND,
    call: (service, c) => service.createConversationFromWorkstreamSummary(param(c, 'workstream_summary')),
  }),
  route({
    method: 'get',
    path: '/conversations/identifiers',
    operationId: 'conversationsIdentifiersSnapshot',
    tag: 'Conversations',
    summary: "Every conversation's id, oldest first.",
    answer: 'FlattenedConversations',
    call: (service) => service.listConversationIdentifiers(),
  }),
  route({
    method: 'get',
    path: '/conversations',
    operationId: 'conversationsSnapshot',
    tag: 'Conversations',
    summary: 'List the conversations (paged with limit and offset).',
    query: 'list',
    answer: 'Conversations',
    call: (service, c) => service.listConversations(readListOptions(c)),
  }),
  route({
    method: 'post',
    path: '/conversations/:conversation/delete',
    operationId: 'conversationsDeleteSpecificConversation',
    tag: 'Conversations',
    summary: 'Delete a conversation and its messages.',
    answer: 'none',
    errors: NOT_FOUND,
    call: (service, c) => service.deleteConversation(param(c, 'conversation')),
  }),
  route({
    method: 'post',
    path: '/conversation/update',
    operationId: 'conversationUpdate',
    tag: 'Conversation',
    summary: "Change a conversation's name, favorite, type, model, application, pipeline, demo or deleted.",
    query: 'read',
    body: { schema: 'ConversationUpdate', required: true },
    answer: 'Conversation',
    errors: NOT_FOUND,
    call: (service, c) => service.updateConversation(readJsonBody(c), readTransferables(c)),
  }),
  route({
    method: 'get',
    path: '/conversation/:conversation',
    operationId: 'conversationGetSpecificConversation',
    tag: 'Conversation',
    summary: 'One conversation with its messages. An unknown conversation answers 410, as the API declares.',
    query: 'read',
    answer: 'Conversation',
    // The cached JSON text: the hot path of every client.
    rendered: true,
    errors: NOT_FOUND,
    // The spec declares 410 for an unknown conversation on this route alone.
    statuses: { NOT_FOUND: 410 },
    call: async (service, c) => ({ text: await service.getConversationJsonPieces(param(c, 'conversation'), readTransferables(c)) }),
  }),
  route({
    method: 'get',
    path: '/conversation/:conversation/messages',
    operationId: 'conversationSpecificConversationMessages',
    tag: 'Conversation',
    summary: "A conversation's messages, in order (paged with limit and offset).",
    query: 'list',
    answer: 'ConversationMessages',
    // Cached JSON text, as the conversation's.
    rendered: true,
    errors: NOT_FOUND,
    call: (service, c) => service.listConversationMessagesJsonPieces(param(c, 'conversation'), readListOptions(c)),
  }),
  route({
    method: 'post',
    path: '/conversations/search',
    operationId: 'searchConversations',
    tag: 'Conversations',
    summary: 'Search conversations by their messages, names and annotations, best first (paged with limit and offset; 20 by default).',
    query: 'list',
    body: { schema: 'SearchInput', required: true },
    answer: 'SearchedConversations',
    call: (service, c) => service.searchConversations(readJsonBody(c), readListOptions(c)),
  }),
  route({
    method: 'post',
    path: '/conversation/:conversation/search',
    operationId: 'searchConversationSpecificMessages',
    tag: 'Conversation',
    summary: "Search a conversation's messages, best first (paged with limit and offset; 20 by default).",
    query: 'list',
    body: { schema: 'SearchInput', required: true },
    answer: 'SearchedConversationMessages',
    errors: NOT_FOUND,
    call: (service, c) => service.searchConversationMessages(param(c, 'conversation'), readJsonBody(c), readListOptions(c)),
  }),
  route({
    method: 'post',
    path: '/messages/search',
    operationId: 'searchMessages',
    tag: 'Conversation messages',
    summary: 'Search the messages of every conversation, best first (paged with limit and offset; 20 by default).',
    query: 'list',
    body: { schema: 'SearchInput', required: true },
    answer: 'SearchedConversationMessages',
    call: (service, c) => service.searchMessages(readJsonBody(c), readListOptions(c)),
  }),
  route({
    method: 'post',
    path: '/conversation/:conversation/rename',
    operationId: 'conversationSpecificConversationRename',
    tag: 'Conversation',
    summary: 'Name a conversation from its messages.',
    query: 'read',
    answer: 'Conversation',
    errors: WRITER_ERRORS,
    call: (service, c) => service.renameConversation(param(c, 'conversation'), readTransferables(c)),
  }),
  route({
    method: 'post',
    path: '/conversation/:conversation/summarize',
    operationId: 'conversationSummarize',
    tag: 'Conversation',
    summary: 'Summarize a conversation (or some of its messages) into a SUMMARY annotation.',
    body: { schema: 'ConversationSummarizeInput' },
    answer: 'ConversationSummarizeOutput',
    errors: WRITER_ERRORS,
    call: (service, c) => service.summarizeConversation(param(c, 'conversation'), readJsonBody(c)),
  }),
  route({
    method: 'post',
    path: '/conversation/:conversation/scores/increment',
    operationId: 'conversationScoresIncrement',
    tag: 'Conversation',
    summary: "Add one to each score field set to true in the body's `conversation`.",
    body: { schema: 'SeededScoreIncrement' },
    answer: 'none',
    errors: NOT_FOUND,
    call: (service, c) => service.incrementConversationScores(param(c, 'conversation'), readJsonBody(c)),
  }),

  route({
    method: 'post',
    path: '/conversation/:conversation/prepare',
    operationId: 'conversationSpecificConversationPrepare',
    tag: 'Conversation',
    summary:
      "What the client calls when a conversation's input gets focus, for a copilot to warm up. Nothing is held per conversation here: checks that it exists and changes nothing.",
    answer: 'none',
    errors: NOT_FOUND,
    call: (service, c) => service.prepareConversation(param(c, 'conversation')),
  }),

  // Links: one route per verb of each link kind.
  ...linkRoutes(),

  // Messages, then the other records conversations link to, one kind at a time.
  route({
    method: 'post',
    path: '/messages/create',
    operationId: 'messagesCreateSpecificMessage',
    tag: 'Messages',
    summary: 'Add a message at the end of its conversation.',
    query: 'read',
    body: { schema: 'SeededConversationMessage', required: true },
    answer: 'ConversationMessage',
    errors: MODEL_ERRORS,
    call: (service, c) => service.createMessage(readJsonBody(c), readTransferables(c)),
  }),
  route({
    method: 'post',
    path: '/messages/:message/delete',
    operationId: 'messagesDeleteSpecificMessage',
    tag: 'Messages',
    summary: 'Delete a message.',
    answer: 'none',
    // Deleting one damaged on disk: its conversation cannot be found from it (delete the conversation).
    errors: ['NOT_FOUND', 'DATA_DAMAGED'],
    call: (service, c) => service.deleteMessage(param(c, 'message')),
  }),
  ...messageRoutes(),
  ...recordRoutes(),

  // Models
  route({
    method: 'get',
    path: '/models',
    operationId: 'modelsSnapshot',
    tag: 'Models',
    summary: 'List the models: built in, offered by the runtimes, and created.',
    answer: 'Models',
    call: (service) => service.listModels(),
  }),
  route({
    method: 'post',
    path: '/models/create',
    operationId: 'modelsCreateNewModel',
    tag: 'Models',
    summary: 'Create a custom model.',
    body: { schema: 'SeededModel', required: true },
    answer: 'Model',
    errors: ['CONFLICT'],
    call: (service, c) => service.createModel(readJsonBody(c)),
  }),
  route({
    method: 'post',
    path: '/models/unload',
    operationId: 'unloadModels',
    tag: 'Models',
    summary: 'Unload every loaded model.',
    answer: 'none',
    call: (service) => service.unloadModels(),
  }),
  route({
    method: 'post',
    path: '/models/:model/delete',
    operationId: 'modelsDeleteSpecificModel',
    tag: 'Models',
    summary: 'Delete a custom model.',
    answer: 'none',
    errors: NOT_FOUND,
    call: (service, c) => service.deleteModel(param(c, 'model')),
  }),
  // The model lifecycle of the official client's ModelApi.
  route({
    method: 'get',
    path: '/model/:model',
    operationId: 'modelsSpecificModelSnapshot',
    tag: 'Model',
    summary: 'One model.',
    answer: 'Model',
    errors: NOT_FOUND,
    call: (service, c) => service.getModel(param(c, 'model')),
  }),
  route({
    method: 'post',
    path: '/model/update',
    operationId: 'modelUpdate',
    tag: 'Model',
    summary: "Change a custom model's fields.",
    body: { schema: 'ModelUpdate', required: true },
    answer: 'Model',
    errors: MODEL_ERRORS,
    call: (service, c) => service.updateModel(readJsonBody(c)),
  }),
  route({
    method: 'post',
    path: '/model/:model/scores/increment',
    operationId: 'modelScoresIncrement',
    tag: 'Model',
    summary:
      "Add one to each score field set to true in the body's `model`. Counted for custom models; a built-in or runtime model's increment is checked and not counted (its record is not stored).",
    body: { schema: 'SeededScoreIncrement' },
    answer: 'none',
    errors: NOT_FOUND,
    call: (service, c) => service.incrementModelScores(param(c, 'model'), readJsonBody(c)),
  }),
  route({
    method: 'post',
    path: '/model/:model/load',
    operationId: 'modelSpecificModelLoad',
    tag: 'Model',
    summary: 'Load a model into memory.',
    answer: 'Model',
    errors: MODEL_ERRORS,
    call: (service, c) => service.loadModel(param(c, 'model')),
  }),
  route({
    method: 'post',
    path: '/model/:model/unload',
    operationId: 'modelSpecificModelUnload',
    tag: 'Model',
    summary: "Free a model's memory.",
    answer: 'Model',
    errors: MODEL_ERRORS,
    call: (service, c) => service.unloadModel(param(c, 'model')),
  }),
  route({
    method: 'post',
    path: '/model/:model/download',
    operationId: 'modelSpecificModelDownload',
    tag: 'Model',
    summary: "Start downloading a model's file.",
    answer: 'Model',
    errors: MODEL_ERRORS,
    call: (service, c) => service.downloadModel(param(c, 'model')),
  }),
  route({
    method: 'post',
    path: '/model/:model/download/cancel',
    operationId: 'modelSpecificModelDownloadCancel',
    tag: 'Model',
    summary: "Cancel a model's download.",
    answer: 'Model',
    errors: MODEL_ERRORS,
    call: (service, c) => service.cancelModelDownload(param(c, 'model')),
  }),
  route({
    method: 'get',
    path: '/model/:model/download/progress',
    operationId: 'modelSpecificModelDownloadProgress',
    tag: 'Model',
    summary: "Where a model's download stands.",
    answer: 'ModelDownloadProgress',
    errors: NOT_FOUND,
    call: (service, c) => service.modelDownloadProgress(param(c, 'model')),
  }),
  route({
    method: 'post',
    path: '/models/:model/delete/cache',
    operationId: 'modelsDeleteSpecificModelCache',
    tag: 'Models',
    summary: "Delete a model's downloaded file.",
    body: { schema: 'ModelDeleteCacheInput' },
    answer: 'ModelDeleteCacheOutput',
    errors: MODEL_ERRORS,
    call: (service, c) => service.deleteModelCache(param(c, 'model'), readJsonBody(c)),
  }),

  // The trash: this service's own routes.
  ...trashRoutes(),

  // Backups: an addition of this service. The server names the folder (in its data folder's
  // backups/); no request ever names a path, so no page can have the server write elsewhere.
  route({
    method: 'post',
    path: '/backup',
    operationId: 'backup',
    tag: 'Backups',
    summary:
      "Write a consistent copy of the store into a new folder of the data folder's `backups/` while the service goes on serving (docs/backup-and-restore.md); answers its name. One at a time (409 while one runs); 501 on PostgreSQL (use `pg_dump`).",
    answer: 'Backup',
    errors: ['CONFLICT', 'INSUFFICIENT_STORAGE', 'NOT_SUPPORTED'],
    call: async (service) => {
      const report = await service.backup();
      return { name: path.basename(report.folder), ...report };
    },
  }),
];
