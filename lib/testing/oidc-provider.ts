import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Account, type KoaContextWithOIDC } from "oidc-provider";

// A real OpenID Connect provider for the SSO tests (the npm `oidc-provider`, the certified implementation), on
// 127.0.0.1 and a free port, with one confidential client whose redirect URIs are the portal's callback, accounts
// held in memory, PKCE required, and a login that completes by itself: the account is the one named by the
// authorization request's login_hint (the email the person typed), or the one set with `signInNextAs`.

export interface TestIdpAccount {
  sub: string;
  email: string;
  emailVerified: boolean;
  name?: string;
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  addAccount(account: TestIdpAccount): void;
  /** The next login is this account, whatever the login_hint (a provider returning another person). */
  signInNextAs(email: string): void;
  /**
   * Follows an authorization URL through the provider (as a fresh browser: a login every time) until it redirects to the
   * client's redirect URI, and returns that URL (with `code` and `state`, or `error`).
   */
  authorize(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestIdp(options: { redirectUris: string[]; clientId?: string }): Promise<TestIdp> {
  const accounts = new Map<string, TestIdpAccount>();
  let nextLogin: string | null = null;
  const clientId = options.clientId ?? "callbook-portal";
  const clientSecret = "test-idp-client-secret-0123456789abcdef";

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Its own signing key (a fresh one per provider) and lifetimes, so that it runs as configured, not as a quick start.
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...signingKey, kid: "test-idp", alg: "RS256", use: "sig" }] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["test-idp-cookie-key"] },
    async findAccount(_ctx: KoaContextWithOIDC, sub: string): Promise<Account | undefined> {
      const account = [...accounts.values()].find((a) => a.sub === sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: account.email,
          email_verified: account.emailVerified,
          ...(account.name ? { name: account.name } : {}),
        }),
      };
    },
    // Consent is given by the test setup: every requested OpenID scope and claim is granted.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
  });

  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return void callback(req, res);
    (async () => {
      const details = await provider.interactionDetails(req, res);
      const hint = typeof details.params.login_hint === "string" ? details.params.login_hint : "";
      const account = accounts.get((nextLogin ?? hint).toLowerCase());
      nextLogin = null;
      const result = account
        ? { login: { accountId: account.sub } }
        : { error: "access_denied", error_description: "no such account" };
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    addAccount: (account) => void accounts.set(account.email.toLowerCase(), account),
    signInNextAs: (email) => void (nextLogin = email),
    async authorize(authorizationUrl) {
      const jar = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop++) {
        if (options.redirectUris.some((uri) => `${url.origin}${url.pathname}` === uri)) return url;
        if (url.origin !== issuer) throw new Error(`left the provider for ${url.href}`);
        const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
        const response = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
        for (const set of response.headers.getSetCookie()) {
          const [pair] = set.split(";");
          const eq = pair.indexOf("=");
          jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
        }
        const location = response.headers.get("location");
        if (!location) throw new Error(`the provider answered ${response.status}: ${await response.text()}`);
        url = new URL(location, url);
      }
      throw new Error("too many redirects at the provider");
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
