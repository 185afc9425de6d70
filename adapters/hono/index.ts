export { createHonoRouter, type HonoRouterOptions } from './router.js';
export { isLoopbackHost, type WebOriginOptions } from './web-origin.js';
export { STATUS_BY_CODE, type StatusOverrides } from './errors.js';
