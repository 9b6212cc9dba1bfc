/** The version of the customer's interface contract this service implements, returned by GET /health. */
export const INTERFACE_VERSION = '1.5.0';
