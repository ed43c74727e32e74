import { CLI_ACTOR } from "@/lib/audit/actor";
import { getBillingGroup } from "@/lib/billing/groups";
import { parseScopeList } from "@/lib/auth/scopes";
import { createKeyAudited } from "@/lib/keys/create-key-audited";
import { revokeKeyAudited } from "@/lib/keys/revoke-key";
import { instantFlag, requireFlag, UsageError, type AdminCommand } from "./command";

const createUsage =
  "keys create --scopes calls:read[,calls:read_cost][,cdrs:write][,keys:read][,keys:write][,audit:read] [--group ID] [--name N] [--expires-at ISO]";

// The operator's keys: any scopes, any group. Each create and revoke is recorded in the audit log (actor `cli`) in
// the transaction of the change, as the /v1 ones are (lib/keys).
export const keyCommands: AdminCommand[] = [
  {
    name: "keys create",
    usage: createUsage,
    options: {
      scopes: { type: "string" },
      group: { type: "string" },
      name: { type: "string" },
      "expires-at": { type: "string" },
    },
    async run(db, flags) {
      let scopes;
      try {
        scopes = parseScopeList(requireFlag(flags, "scopes", createUsage));
      } catch (e) {
        if (e instanceof UsageError) throw e;
        throw new UsageError(`--scopes: ${(e as Error).message}`);
      }
      const groupId = typeof flags.group === "string" ? flags.group : null;
      if (groupId && !(await getBillingGroup(db, groupId))) throw new UsageError(`no billing group ${groupId}`);
      const expiresAt = instantFlag(flags, "expires-at", createUsage) ?? null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw new UsageError("--expires-at must be in the future");
      const name = typeof flags.name === "string" ? flags.name : undefined;
      const created = await db.transaction((tx) =>
        createKeyAudited(tx, { scopes, billingGroupId: groupId, name, expiresAt }, CLI_ACTOR, null),
      );
      return { ...created, createdAt: created.createdAt.toISOString(), expiresAt: expiresAt?.toISOString() ?? null };
    },
  },
  {
    name: "keys revoke",
    usage: "keys revoke --id KEY_ID",
    options: { id: { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "id", this.usage);
      const revoked = await revokeKeyAudited(db, id, CLI_ACTOR, null);
      if (!revoked?.changed) throw new UsageError(`no live key ${id}`);
      return { id, revoked: true, revokedAt: revoked.key.revokedAt };
    },
  },
];
