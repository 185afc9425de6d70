import { createMemoryRepository } from '../../src/index.js';
import { describeRepositoryContract } from './repository-contract.js';

describeRepositoryContract('memory', async () => createMemoryRepository());
