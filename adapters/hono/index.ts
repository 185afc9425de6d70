export { type RouterLogger, STATUS_BY_CODE, type StatusOverrides } from './errors.js';
export { createOpenApiDocument } from './openapi.js';
export { createHonoRouter, type HonoRouterOptions } from './router.js';
export { isLoopbackHost, type WebOriginOptions } from './web-origin.js';
