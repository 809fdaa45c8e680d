import { dictionary } from "@zxcvbn-ts/language-common";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "@/lib/contract/password";

/**
 * The password policy every new password passes (sign-up, reset, change): a
 * length range and no password from a list of the most common ones (about 49k
 * entries from leaked-password corpora, shipped with @zxcvbn-ts/language-common,
 * so the check is offline). Case-insensitive and ignoring surrounding spaces:
 * "Password1" is as guessable as "password1".
 */
export type PasswordProblem = "too_short" | "too_long" | "too_common";

let common: Set<string> | null = null;

function commonPasswords(): Set<string> {
  // Built on first use: the list is large and most processes never need it.
  common ??= new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));
  return common;
}

export function passwordProblem(password: string): PasswordProblem | null {
  if (password.length < MIN_PASSWORD_LENGTH) return "too_short";
  if (password.length > MAX_PASSWORD_LENGTH) return "too_long";
  if (commonPasswords().has(password.trim().toLowerCase())) return "too_common";
  return null;
}

/** better-auth error code the browser maps to its sentence (components/auth-form.tsx). */
export const PASSWORD_TOO_COMMON = "PASSWORD_TOO_COMMON";
export const PASSWORD_TOO_COMMON_MESSAGE =
  "This password is one of the most common passwords, so it would be guessed quickly. Choose another one.";
