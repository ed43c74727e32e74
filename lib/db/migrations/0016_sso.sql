-- OIDC single sign-on per organization (docs/contract.md §16). One provider per organization; each verified email
-- domain belongs to one provider, so an email's domain names at most one organization. The client secret is kept
-- encrypted (AES-256-GCM under a key derived from SESSION_SECRET, lib/sso/client-secret.ts), never in clear.
CREATE TABLE "sso_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL REFERENCES "organizations"("id") ON DELETE CASCADE,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_encrypted" text NOT NULL,
	"default_role" text DEFAULT 'viewer' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_providers_organization_unique" UNIQUE("organization_id"),
	CONSTRAINT "sso_providers_default_role" CHECK ("default_role" IN ('viewer', 'billing', 'developer', 'admin'))
);
--> statement-breakpoint
CREATE TABLE "sso_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"provider_id" text NOT NULL REFERENCES "sso_providers"("id") ON DELETE CASCADE,
	CONSTRAINT "sso_domains_lower" CHECK ("domain" = lower("domain"))
);
--> statement-breakpoint
CREATE INDEX "sso_domains_provider_idx" ON "sso_domains" ("provider_id");
