export {
  createExtractiveSummarizer,
  EXTRACTIVE_SUMMARIZER_VERSION,
  type ExtractiveSummarizerOptions,
} from './extractive.js';
export {
  createFakeSummarizer,
  type FakeAnswer,
  type FakeSummarizer,
  type FakeSummarizerCall,
  type FakeSummarizerOptions,
} from './fake.js';
