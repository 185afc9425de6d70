/** Record builders for storage tests: the ones the shipped contract suite uses. */
export { conversationRecord, messageRecord } from '../../src/testing/records.js';
