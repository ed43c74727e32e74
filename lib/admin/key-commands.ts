import { getBillingGroup } from "@/lib/billing/groups";
import { createApiKey, revokeApiKey } from "@/lib/auth/manage-keys";
import { parseScopeList } from "@/lib/auth/scopes";
import { requireFlag, UsageError, type AdminCommand } from "./command";

const createUsage = "keys create --scopes calls:read[,calls:read_cost][,cdrs:write] [--group ID] [--name N]";

export const keyCommands: AdminCommand[] = [
  {
    name: "keys create",
    usage: createUsage,
    options: { scopes: { type: "string" }, group: { type: "string" }, name: { type: "string" } },
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
      return createApiKey(db, {
        scopes,
        billingGroupId: groupId,
        name: typeof flags.name === "string" ? flags.name : undefined,
      });
    },
  },
  {
    name: "keys revoke",
    usage: "keys revoke --id KEY_ID",
    options: { id: { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "id", this.usage);
      if (!(await revokeApiKey(db, id))) throw new UsageError(`no live key ${id}`);
      return { id, revoked: true };
    },
  },
];
