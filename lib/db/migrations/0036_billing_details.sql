-- A reseller's billing details (issue 32 item 4): the name, address and tax id its customers' invoices are issued
-- under. Empty: the account's name and no address, as before. Set by the account's own owners and admins.
ALTER TABLE billing_groups ADD COLUMN billing_name text NOT NULL DEFAULT '';
--> statement-breakpoint
ALTER TABLE billing_groups ADD COLUMN billing_address text NOT NULL DEFAULT '';
--> statement-breakpoint
ALTER TABLE billing_groups ADD COLUMN tax_id text NOT NULL DEFAULT '';
--> statement-breakpoint
-- The display name a message is sent under (the From's name; the address stays MAIL_FROM's). Null: MAIL_FROM's own.
ALTER TABLE mail_outbox ADD COLUMN from_name text;
