export { type RouterLogger, STATUS_BY_CODE, type StatusOverrides } from './errors.js';
export { createOpenApiDocument } from './openapi.js';
export { createHonoRouter, type HonoRouterOptions } from './router.js';
export { type AttachedStreams, attachStreams, STREAM_CLOSE_CODES, STREAM_PROTOCOL, type StreamsOptions } from './streams.js';
export { isLoopbackHost, type WebOriginOptions } from './web-origin.js';
