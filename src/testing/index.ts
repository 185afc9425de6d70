/**
 * `conversation-model-service/testing`: what a store of your own runs to show it is a Repository
 * the service can use. It registers vitest tests, so vitest must be installed (an optional peer
 * dependency of this package); nothing else of the package needs it.
 */
export { describeRepositoryContract, type RepositoryContractOptions } from './repository-contract.js';
