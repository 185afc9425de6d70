/** Record builders for storage tests: the ones the shipped contract suite uses. */
export { conversationRecord, messageRecord, sampleRecord } from '../../src/testing/records.js';
