import { createHmac } from "node:crypto";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { passkey } from "@better-auth/passkey";
import { bearer, organization, twoFactor } from "better-auth/plugins";
import { createAccessControl } from "better-auth/plugins/access";
import { defaultStatements } from "better-auth/plugins/organization/access";
import { PERSON_SESSION_PREFIX } from "@/lib/auth/find-key";
import { SESSION_TTL_SECONDS } from "@/lib/auth/session-token";
import { publicOrigin } from "@/lib/config/env";
import { serverSecret } from "@/lib/config/secrets";
import type { Db, Tx } from "@/lib/db/client";
import {
  authAccounts,
  authSessions,
  authVerifications,
  invitations,
  members,
  organizations,
  passkeys,
  twoFactors,
  users,
} from "@/lib/db/schema";
import { sendMail } from "@/lib/mail/send-mail";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { mailLink } from "./mail-origin";
import { hashPassword, verifyPassword } from "./password";
import { authRowId } from "./auth-row-id";

// better-auth (https://better-auth.com) keeps people, their passwords, sessions, verification and reset tokens,
// organizations, members and invitations, through its Drizzle adapter on the app's own handle, so PGlite and
// PostgreSQL alike. Its HTTP handler is not mounted: the portal's routes call `auth.api` server-side, so only the
// flows the product offers exist (no open sign-up, no organization creation), each behind the limits of
// lib/people/request-limit.ts. The portal's own signed cookie names the session (lib/auth/session-token.ts), and
// lib/auth/find-key.ts reads the session, membership and role on every request (role -> scopes, lib/auth/roles.ts).

/** How long an invitation stays valid (better-auth's and the console's, lib/people/invite-to-account.ts). */
export const INVITATION_DAYS = 7;

const ID_PREFIXES: Record<string, string> = {
  user: "usr",
  session: PERSON_SESSION_PREFIX.slice(0, -1),
  account: "acc",
  verification: "ver",
  organization: "org",
  member: "mem",
  invitation: "inv",
  twoFactor: "tfa",
  passkey: "pk",
};

/** The organization plugin's permissions per role: who may invite, change roles and remove (README roles table). */
const ac = createAccessControl(defaultStatements);
const manageMembers = { member: ["create", "update", "delete"], invitation: ["create", "cancel"] } as const;
const noPermission = {} as const;
export const orgRoles = {
  owner: ac.newRole({ ...manageMembers, organization: ["update"] }),
  admin: ac.newRole(manageMembers),
  billing: ac.newRole(noPermission),
  developer: ac.newRole(noPermission),
  viewer: ac.newRole(noPermission),
};

function mailInBackground(message: Parameters<typeof sendMail>[0]): void {
  sendMail(message).catch((error: unknown) => console.error(`[mail] to ${message.to} failed:`, error));
}

/**
 * The WebAuthn relying party: PUBLIC_BASE_URL's host name, else "localhost" (development and tests, which open the
 * portal at http://localhost:port; browsers refuse an IP address as a relying party). A passkey is bound to it.
 */
export function passkeyRelyingPartyId(): string {
  const site = publicOrigin();
  return site ? new URL(site.origin).hostname : "localhost";
}

function createAuth(db: Db | Tx) {
  return betterAuth({
    appName: "Callbook",
    // Only used for the links better-auth would build itself; the portal builds its own from configuration
    // (lib/people/mail-origin.ts).
    baseURL: "http://localhost",
    secret: createHmac("sha256", serverSecret("SESSION_SECRET")).update("better-auth").digest("base64url"),
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: {
        users,
        authSessions,
        authAccounts,
        authVerifications,
        organizations,
        members,
        invitations,
        twoFactors,
        passkeys,
      },
    }),
    user: { modelName: "users" },
    session: { modelName: "authSessions", expiresIn: SESSION_TTL_SECONDS, updateAge: SESSION_TTL_SECONDS },
    account: { modelName: "authAccounts" },
    verification: { modelName: "authVerifications" },
    // The portal's limits are per account and per address (lib/people/request-limit.ts); better-auth's own counts
    // requests to its handler, which is not mounted.
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    // Its warnings name what failed ("User not found"): the server's log must not tell what the answer does not.
    logger: { level: "error" },
    advanced: {
      database: {
        generateId: ({ model }) => authRowId(ID_PREFIXES[model] ?? model),
      },
    },
    emailAndPassword: {
      enabled: true,
      // People join by invitation only (lib/people/accept-invitation.ts).
      disableSignUp: true,
      requireEmailVerification: true,
      minPasswordLength: 10,
      maxPasswordLength: 256,
      password: { hash: hashPassword, verify: verifyPassword },
      // Reset links are made and mailed by lib/people/password-reset.ts, off the request path (the same answer and
      // work for any address); better-auth's resetPassword consumes them and ends the person's sessions.
      revokeSessionsOnPasswordReset: true,
    },
    emailVerification: {
      sendOnSignIn: true,
      expiresIn: 24 * 60 * 60,
      sendVerificationEmail: async ({ user, token }) => {
        mailInBackground({
          to: user.email,
          subject: "Confirm your email for Callbook",
          text: `Confirm ${user.email} to sign in to Callbook:\n\n${mailLink(`/verify-email?token=${encodeURIComponent(token)}`)}\n\nThe link works for 24 hours.`,
        });
      },
    },
    plugins: [
      bearer(),
      organization({
        ac,
        roles: orgRoles,
        allowUserToCreateOrganization: false,
        invitationExpiresIn: INVITATION_DAYS * 24 * 60 * 60,
        cancelPendingInvitationsOnReInvite: true,
        schema: {
          organization: { modelName: "organizations" },
          member: { modelName: "members" },
          invitation: { modelName: "invitations" },
        },
      }),
      // TOTP with recovery codes (lib/people/two-factor.ts): the secret and the codes are stored encrypted with the
      // secret above; a password sign-in of a person with TOTP answers `twoFactorRedirect` instead of a session.
      twoFactor({
        issuer: "Callbook",
        schema: { twoFactor: { modelName: "twoFactors" } },
        backupCodeOptions: { amount: 10, length: 10, storeBackupCodes: "encrypted" },
      }),
      // Passkeys (lib/people/passkeys.ts). The expected origin is the site's (the caller passes it, never the
      // browser's claim alone).
      passkey({ rpID: passkeyRelyingPartyId(), rpName: "Callbook", schema: { passkey: { modelName: "passkeys" } } }),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** The better-auth instance of a database handle, one per process (every route chunk shares it). */
export function authFor(db: Db): Auth {
  const instances = processSingleton("better-auth", () => new WeakMap<Db, Auth>());
  let auth = instances.get(db);
  if (!auth) {
    auth = createAuth(db);
    instances.set(db, auth);
  }
  return auth;
}

/**
 * A better-auth instance on an open transaction: what it writes (a second factor turned on or off, new recovery
 * codes, the session it replaces) commits or rolls back with the audit event recorded beside it.
 */
export function authInTransaction(tx: Tx): Auth {
  return createAuth(tx) as unknown as Auth;
}

/** Headers that make better-auth see a session as signed in (its bearer plugin), for its member endpoints. */
export function sessionHeaders(sessionToken: string): Headers {
  return new Headers({ authorization: `Bearer ${sessionToken}` });
}
