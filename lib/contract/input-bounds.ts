// Lengths the browser's inputs share with the request schemas (lib/contract/schemas.ts).
// Kept free of zod: importing the schemas into a page would bring zod's eval probe
// (`Function("")`) into the browser, which the page CSP reports as a violation.

export const MAX_TITLE_CHARS = 200;
/** Search text is matched literally (ILIKE with its wildcards escaped); the cap keeps each row's match cheap. */
export const MAX_SEARCH_CHARS = 100;
