export { createHonoRouter, type HonoRouterOptions } from './router.js';
export { createOpenApiDocument } from './openapi.js';
export { isLoopbackHost, type WebOriginOptions } from './web-origin.js';
export { STATUS_BY_CODE, type RouterLogger, type StatusOverrides } from './errors.js';
