import { param, readJsonBody, readListOptions, readTransferables } from './request.js';
import { type Route, route } from './route.js';

/** A message or an annotation damaged on disk answers so (its record is read, or rewritten). */
const READ_ERRORS = ['NOT_FOUND', 'DATA_DAMAGED'] as const;

/**
 * The routes of one message and one annotation of the official client's ConversationMessageApi,
 * ConversationMessagesApi, AnnotationApi and AnnotationsApi (besides their links): read one, list,
 * update, score, and search annotations.
 */
export function messageRoutes(): Route[] {
  return [
    route({
      method: 'get',
      path: '/messages',
      operationId: 'messagesSnapshot',
      tag: 'Messages',
      summary:
        "List the messages of every conversation, oldest first (paged with limit and offset); `indices` gives each one's place in the list.",
      query: 'list',
      answer: 'ConversationMessages',
      errors: ['DATA_DAMAGED'],
      call: (service, c) => service.listMessages(readListOptions(c)),
    }),
    route({
      method: 'get',
      path: '/message/:message',
      operationId: 'messageSpecificMessageSnapshot',
      tag: 'Message',
      summary: 'One message, with the summaries that cover it: what a stream reader fetches for each id it is sent.',
      query: 'read',
      answer: 'ConversationMessage',
      errors: READ_ERRORS,
      call: (service, c) => service.getMessage(param(c, 'message'), readTransferables(c)),
    }),
    route({
      method: 'post',
      path: '/message/update',
      operationId: 'messageSpecificMessageUpdate',
      tag: 'Message',
      summary:
        "Change a message's fragment, role, sentiment, model or deleted (the body is the ConversationMessage, with its id). Searched by its new text at once.",
      query: 'read',
      body: { schema: 'MessageUpdate', required: true },
      answer: 'ConversationMessage',
      errors: READ_ERRORS,
      call: (service, c) => service.updateMessage(readJsonBody(c), readTransferables(c)),
    }),
    route({
      method: 'post',
      path: '/message/update/value',
      operationId: 'messageUpdateValue',
      tag: 'Message',
      summary:
        "Set a message's value, its `fragment`: a reply that grew as a model streamed it, or a prompt edited before it is sent again. Searched by its new text at once; the old text is no longer found.",
      query: 'read',
      body: { schema: 'MessageValueUpdate', required: true },
      answer: 'ConversationMessage',
      errors: READ_ERRORS,
      call: (service, c) => service.updateMessageValue(readJsonBody(c), readTransferables(c)),
    }),
    route({
      method: 'post',
      path: '/message/:message/scores/increment',
      operationId: 'messageScoresIncrement',
      tag: 'Message',
      summary: "Add one to each score field set to true in the body's `conversationMessage`.",
      body: { schema: 'SeededScoreIncrement' },
      answer: 'none',
      errors: READ_ERRORS,
      call: (service, c) => service.incrementMessageScores(param(c, 'message'), readJsonBody(c)),
    }),
    route({
      method: 'get',
      path: '/annotation/:annotation',
      operationId: 'annotationSpecificAnnotationSnapshot',
      tag: 'Annotation',
      summary: 'One annotation.',
      answer: 'Annotation',
      errors: ['NOT_FOUND'],
      call: (service, c) => service.getAnnotation(param(c, 'annotation')),
    }),
    route({
      method: 'post',
      path: '/annotation/update',
      operationId: 'annotationUpdate',
      tag: 'Annotation',
      summary:
        "Change an annotation's text, type, mechanism, favorited or model (a summary edited; the body is the Annotation, with its id). Searched by its new text at once.",
      body: { schema: 'AnnotationUpdate', required: true },
      answer: 'Annotation',
      errors: ['NOT_FOUND'],
      call: (service, c) => service.updateAnnotation(readJsonBody(c)),
    }),
    route({
      method: 'post',
      path: '/annotation/:annotation/scores/increment',
      operationId: 'annotationScoresIncrement',
      tag: 'Annotation',
      summary: "Add one to each score field set to true in the body's `annotation`.",
      body: { schema: 'SeededScoreIncrement' },
      answer: 'none',
      errors: ['NOT_FOUND'],
      call: (service, c) => service.incrementAnnotationScores(param(c, 'annotation'), readJsonBody(c)),
    }),
    route({
      method: 'post',
      path: '/annotations/search',
      operationId: 'searchAnnotations',
      tag: 'Annotations',
      summary:
        'Search the annotations by their text, best first (paged with limit and offset; 20 by default). `embeddings` engines run as full text.',
      query: 'list',
      body: { schema: 'SearchInput', required: true },
      answer: 'SearchedAnnotations',
      call: (service, c) => service.searchAnnotations(readJsonBody(c), readListOptions(c)),
    }),
  ];
}
