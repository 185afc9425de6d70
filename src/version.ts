/** This release of the service (the package's version; a test keeps the two equal). */
export const SERVICE_VERSION = '0.1.0';
