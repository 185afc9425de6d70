import { createMemoryRepository } from '../../src/index.js';
import { describeRepositoryContract } from '../../src/testing/index.js';

describeRepositoryContract('memory', async () => createMemoryRepository());
