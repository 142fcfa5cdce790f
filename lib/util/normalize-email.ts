// One rule for the form an e-mail address is stored and compared in, shared by body validation, the
// auth routes and the rate limiter's per-account key, so an address typed differently is the same account.

/** The address trimmed and lower-cased, as records store it (no validation: callers check the shape). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
