// Account pages, settings' account section, the phone's account menu and the
// delivery picker's explanation. Spread into en.ts; account-zh.ts
// has the same keys (checked by its type).

export const accountEn = {
  // auth forms
  showPassword: "Show password",
  passwordPolicyHint: "At least 8 characters, and not one of the common passwords.",
  errPasswordCommon:
    "This password is one of the most common passwords, so it would be guessed quickly. Choose another one.",
  forgotPassword: "Forgot password?",
  forgotTitle: "Reset your password",
  forgotLead: "Enter your account's email address and we'll send you a link to choose a new password.",
  sendResetLink: "Send reset link",
  sendingResetLink: "Sending…",
  resetLinkSent:
    "If an account uses that address, a link to choose a new password is on its way. It works once, within one hour.",
  resetEmailOff:
    "Email is off on this server, so no reset link can be sent. Ask the person who runs this Herald to reset your password.",
  resetTitle: "Choose a new password",
  newPassword: "New password",
  setNewPassword: "Set new password",
  resetDone: "Your password was changed and every device was signed out. Sign in with the new password.",
  resetInvalid: "This reset link is invalid, was already used or has expired. Ask for a new one.",
  askNewLink: "Ask for a new link",
  backToSignIn: "Back to sign in",
  errValidation: "Check the fields and try again.",

  // settings: password, data, deletion
  passwordSection: "Password",
  currentPassword: "Current password",
  changePassword: "Change password",
  passwordChanged: "Password changed. Your other devices were signed out.",
  errWrongPassword: "That is not your current password.",
  dataSection: "Your data",
  exportData: "Download my data",
  exportLead: "A JSON file with your conversations, messages, reports and tasks.",
  deleteSection: "Delete account",
  deleteLead:
    "Stops your running tasks and removes your conversations, reports, tasks and API keys. This cannot be undone.",
  deleteAccount: "Delete account…",
  confirmWithPassword: "Your password",
  deleteForever: "Delete my account forever",
  keepAccount: "Keep my account",
  deleting: "Deleting…",

  // settings: API keys (asked again for the password; a new password revokes them)
  apiKeyPassword: "Password",
  apiKeyExpiry: "Expires",
  apiKeyExpiryNever: "Never",
  apiKeyExpiryDays: "In {days} days",
  apiKeyExpires: "expires",
  apiKeyExpired: "expired",
  apiKeyNeverExpires: "never expires",
  apiKeysPasswordRevokes: "Changing or resetting your password revokes every key.",

  // settings: Agent Protocol webhook deliveries
  webhooksTitle: "Webhook deliveries",
  webhooksIntro:
    "Runs started with one of your keys and a webhook tell their URL when they end. Herald retries until the receiver answers 2xx.",
  webhooksEmpty: "No webhooks yet.",
  webhookDelivered: "delivered",
  webhookPending: "retrying",
  webhookWaiting: "waits for the run to end",
  webhookDead: "gave up",
  webhookAttempts: "attempts: {n}",
  webhookLastError: "last error: {error}",

  // settings: email address verification
  emailUnverified: "Confirm your email address before Herald emails you notices.",
  sendVerificationEmail: "Send verification email",
  verificationSent: "A confirmation link is on its way to {email}. Open it, then come back here.",
  verificationFailed: "The verification email could not be sent. Try again later.",

  // other tabs
  signedOutElsewhere: "You were signed out in another tab. What you typed is kept and comes back after you sign in.",
  draftRestored: "Your unsent message was restored.",

  // phone header
  signOutHint: "Signs this browser out. Your tasks keep running.",

  // delivery picker
  deliveryTimeOfDay: "At time",
  explainAt: "Herald will tell you at {time} (in {left}) with whatever is ready then, finished or not.",
  explainBy:
    "Herald will tell you as soon as it's done. If it isn't done by {time} (in {left}), you'll hear when it finishes.",
  explainByAnyway:
    "Herald will tell you as soon as it's done, and at {time} (in {left}) at the latest, finished or not.",
  explainStop: "The work stops at that time.",
  explainNoTask: "A deadline only applies if the message starts background research.",
  explainTooShort:
    "Research takes at least a minute or two: with less than a minute, Herald will most likely only tell you it did not finish in time.",
  durationSeconds: "{s} s",
  durationMinutes: "{m} min {s} s",
  durationHours: "{h} h {m} min",
  tomorrowAt: "tomorrow at {time}",
};
