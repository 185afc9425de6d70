import { param, readTransferables } from './request.js';
import { type Route, route } from './route.js';

/**
 * The trash's routes: this service's own (the official client has no trash), for the `trash`
 * commands of the CLI and for scripts. Deleting a conversation through the client's route moves it
 * to the trash; these list, restore and empty it. Like every route, they answer only the hosts,
 * web origins and token the router allows.
 */
export function trashRoutes(): Route[] {
  return [
    route({
      method: 'post',
      path: '/conversations/:conversation/restore',
      operationId: 'trashRestoreSpecificConversation',
      tag: 'Trash',
      summary:
        'Bring a deleted conversation back from the trash, exactly as it was, with its links to the records that still exist; answers it as `GET /conversation/{conversation}` does. 404 when the trash does not hold it, 409 when a conversation of its id exists.',
      query: 'read',
      answer: 'Conversation',
      errors: ['NOT_FOUND', 'CONFLICT', 'UNPROCESSABLE'],
      call: (service, c) => service.restoreConversation(param(c, 'conversation'), readTransferables(c)),
    }),
    route({
      method: 'get',
      path: '/trash',
      operationId: 'trashSnapshot',
      tag: 'Trash',
      summary:
        'The deleted conversations the trash keeps, the most recently deleted first: id, name, when deleted, when it expires, messages.',
      answer: 'TrashedConversations',
      call: (service) => service.listTrash(),
    }),
    route({
      method: 'post',
      path: '/trash/empty',
      operationId: 'trashEmpty',
      tag: 'Trash',
      summary: 'Remove every conversation in the trash for good; answers how many.',
      answer: 'TrashEmptied',
      call: (service) => service.emptyTrash(),
    }),
    route({
      method: 'post',
      path: '/trash/:conversation/delete',
      operationId: 'trashDeleteSpecificConversation',
      tag: 'Trash',
      summary: 'Remove one conversation from the trash for good.',
      answer: 'none',
      errors: ['NOT_FOUND'],
      call: (service, c) => service.purgeTrashed(param(c, 'conversation')),
    }),
  ];
}
