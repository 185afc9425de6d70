/**
 * `conversation-model-service/store-kit`: what a Repository of your own (a database, a key-value
 * store) builds on, the parts the memory and JSON-file stores are made of. With it a store keeps
 * the guarantees the contract suite (`conversation-model-service/testing`) checks: records copied
 * and frozen as they are put, JSON alone accepted, a transaction's writes buffered until its
 * function returns, transactions run one at a time where the store has no locks of its own, and
 * a change feed that delivers each committed transaction's writes to the indexes beside them.
 *
 * An entry of its own, beside the main one: a store's author needs these, a service's user does
 * not, so the main entry's surface stays the service's, and this one can follow the port.
 */
export { deepFreeze, frozenCopy } from './frozen.js';
export { isAppendedTo } from './id-lists.js';
export type {
  ChangeBatch,
  ChangeFeed,
  Page,
  PageRequest,
  ReadView,
  RecordChange,
  Repository,
  StoreHealth,
  TextSearch,
  Transaction,
} from './ports.js';
export { bufferedTransaction, TransactionQueue } from './stores/buffered-transaction.js';
export { ChangeEmitter } from './stores/change-emitter.js';
export { recordProblem } from './stores/record-checks.js';
export { pageOfArray } from './stores/record-tables.js';
