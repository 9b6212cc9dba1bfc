/** The interface version of SPEC.md §9, returned by GET /health. */
export const INTERFACE_VERSION = '1.5.0';
