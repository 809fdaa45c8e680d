/**
 * What a user may learn about a failure: a stable category and one sentence of
 * Herald's own. Raw SDK, driver, remote and database messages can name hosts,
 * ports, SQL or a remote's body, so they go to the server log only; rows store
 * the category's sentence, and browsers localise by `errorCode`.
 */
export const ERROR_CATEGORIES = {
  model_unavailable: "The AI model is unavailable right now.",
  model_rate_limited: "The AI model provider is limiting requests right now.",
  model_refused: "The AI model provider refused the request.",
  unreachable: "A service Herald relies on could not be reached.",
  remote_failed: "The remote service reported that the work failed.",
  protocol: "The remote service answered in a way Herald does not understand.",
  timeout: "The work took too long and was stopped.",
  internal: "Something went wrong inside Herald.",
} as const;

export type ErrorCategory = keyof typeof ERROR_CATEGORIES;

const BY_SENTENCE = new Map<string, ErrorCategory>(
  (Object.entries(ERROR_CATEGORIES) as [ErrorCategory, string][]).map(([k, v]) => [v, k]),
);

/** The category of a stored sentence (exact match), for localisation in the browser. */
export function errorCodeOf(stored: string | null): ErrorCategory | null {
  return stored === null ? null : (BY_SENTENCE.get(stored) ?? null);
}
