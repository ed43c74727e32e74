-- Second factor (lib/people/two-factor.ts, docs/contract.md §15): better-auth's twoFactor and passkey plugins keep
-- their rows here, through the same Drizzle adapter as the other people tables.
ALTER TABLE "users" ADD COLUMN "two_factor_enabled" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- An organization's owner or admin (or the operator, CLI `people require-2fa`) makes a second factor compulsory for
-- its members: one without it reaches only the Security page until they enroll.
ALTER TABLE "organizations" ADD COLUMN "require_two_factor" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
CREATE TABLE "two_factors" (
	"id" text PRIMARY KEY NOT NULL,
	"secret" text NOT NULL,
	"backup_codes" text NOT NULL,
	"user_id" text NOT NULL,
	"verified" boolean DEFAULT true,
	"failed_verification_count" integer DEFAULT 0,
	"locked_until" timestamp (3) with time zone,
	CONSTRAINT "two_factors_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX "two_factors_user_key" ON "two_factors" USING btree ("user_id");
--> statement-breakpoint
CREATE INDEX "two_factors_secret_idx" ON "two_factors" USING btree ("secret");
--> statement-breakpoint
CREATE TABLE "passkeys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text,
	"public_key" text NOT NULL,
	"user_id" text NOT NULL,
	"credential_id" text NOT NULL,
	"counter" integer NOT NULL,
	"device_type" text NOT NULL,
	"backed_up" boolean NOT NULL,
	"transports" text,
	"created_at" timestamp (3) with time zone DEFAULT now(),
	"aaguid" text,
	CONSTRAINT "passkeys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX "passkeys_user_idx" ON "passkeys" USING btree ("user_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "passkeys_credential_key" ON "passkeys" USING btree ("credential_id");
--> statement-breakpoint
-- A member's principal carries whether their organization requires a second factor they lack (lib/auth/find-key.ts):
-- turning the requirement on or off drops every process's principal cache (users' updates already do, 0014).
CREATE TRIGGER organizations_notify_auth AFTER UPDATE OF require_two_factor ON organizations
  FOR EACH STATEMENT EXECUTE FUNCTION callbook_notify_auth_change();
