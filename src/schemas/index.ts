export * from './common.js';
export * from './seeds.js';
export * from './conversation-inputs.js';
export * from './models.js';
