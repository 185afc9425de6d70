/**
 * The version of the data file's layout that this release writes. In a file of its own so that the
 * root entry point can export it without loading the store (`migrations.ts` re-exports it).
 */
export const JSON_FILE_FORMAT_VERSION = 8;
