/**
 * A trigger of the migrated database, declared in the concept folder whose behaviour it is (lib/<concept>/
 * triggers.ts), so that behaviour living in SQL is found from its concept. lib/db/triggers.test.ts holds every
 * declaration to the database on both engines: the trigger exists with this definition, each function's body is the
 * one its named migration writes, and no trigger of the database goes undeclared.
 */
export interface TriggerDeclaration {
  /** The trigger's name, e.g. "calls_settle_authorizations". */
  name: string;
  /** The table it acts on. */
  table: string;
  /** When and what it runs, as PostgreSQL prints it (pg_get_triggerdef). */
  definition: string;
  /** The migration (file name in lib/db/migrations) whose CREATE TRIGGER made it as it is now. */
  migration: string;
  /** The plpgsql functions it runs (and those they call), each with the migration that writes its body. */
  functions: { name: string; migration: string }[];
}
