-- Who imported each rate deck (the deck history of /v1 and the console): the audit actor of the import. Decks
-- imported before this column, and those the seeding code adds, have none.
ALTER TABLE "rate_decks" ADD COLUMN "imported_by_type" text;--> statement-breakpoint
ALTER TABLE "rate_decks" ADD COLUMN "imported_by_id" text;--> statement-breakpoint
ALTER TABLE "rate_decks" ADD COLUMN "imported_by_label" text;
