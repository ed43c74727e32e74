/** What the sign-in page says for each `?error=` its form post may come back with (lib/portal/sign-in-post.ts). */
export const SIGN_IN_MESSAGES: Record<string, string> = {
  password: "That email and password do not match an account. Check them and try again.",
  missing_password: "Enter your email address and password to sign in.",
  unverified: "Confirm your email address first: we have sent you a new link.",
  no_organization: "Your account is not a member of any organization any more. Ask an owner or admin to invite you.",
  invalid: "That key is unknown or has been revoked. Check it and try again.",
  scope: "This key can only send call records (cdrs:write); sign in with a key that can read calls.",
  missing: "Paste your API key to sign in.",
  key_disabled: "Signing in with an API key is off on this server. Sign in with your email and password.",
  expired: "Your session has ended. Sign in again to continue.",
  origin: "The sign-in request came from another site and was refused.",
  second_factor_expired: "The sign-in took too long or too many codes were tried. Enter your password again.",
  passkey: "That passkey could not sign you in. Try again, or use your email and password.",
  sso_missing: "Enter your work email address to sign in with single sign-on.",
  sso_no_provider: "Single sign-on is not set up for that email's domain. Sign in with your password.",
  sso_unavailable: "Your organization's identity provider did not answer. Try again in a moment.",
  sso_expired: "That single sign-on attempt has expired or was already used. Start again.",
  sso_refused: "Single sign-on failed: your identity provider's answer could not be verified. Start again.",
  sso_unverified: "Your identity provider has not verified your email address, so it cannot sign you in here.",
  sso_not_member: "Your account is not a member of the platform. Ask an owner or admin to add you.",
  sso_domain: "Your identity provider signed you in with an email of a domain this organization has not verified.",
};

/** What the second step of sign-in says for each `?error=` (lib/portal/second-factor-post.ts). */
export const SECOND_FACTOR_MESSAGES: Record<string, string> = {
  code: "That code is not right. Check your authenticator app (or the recovery code) and try again.",
  missing: "Enter the code to continue.",
};

/** Notices for the flags other pages send people back with. */
export const SIGN_IN_NOTICES: Record<string, string> = {
  signedOut: "You have signed out.",
  reset: "Your password has been changed. Sign in with the new one.",
  verified: "Your email address is confirmed. You can sign in now.",
};
