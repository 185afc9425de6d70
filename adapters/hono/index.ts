export { createHonoRouter, type HonoRouterOptions } from './router.js';
export { STATUS_BY_CODE, type StatusOverrides } from './errors.js';
