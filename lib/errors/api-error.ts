// Typed errors that the route wrapper maps to the JSON error contract (docs/api.md#errors).
export type ErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  /** Email notices asked for an address not yet proven to be the account's (409). */
  | "email_unverified"
  | "payload_too_large"
  | "rate_limited"
  | "quota_exceeded"
  | "unavailable"
  | "internal";

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  email_unverified: 409,
  payload_too_large: 413,
  rate_limited: 429,
  quota_exceeded: 429,
  unavailable: 503,
  internal: 500,
};

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    /** Seconds until the request may succeed; sent as Retry-After (429, 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
  get status(): number {
    return STATUS[this.code];
  }
}

export const notFound = (what = "Resource") => new ApiError("not_found", `${what} not found`);
