import { randomBytes } from "node:crypto";
import { ROLES, roleSchema, type Role } from "@/lib/auth/roles";
import { addPerson, setMembership } from "@/lib/people/add-person";
import { setCostRoles } from "@/lib/people/cost-roles";
import { setTwoFactorRequirementByOperator } from "@/lib/people/require-two-factor";
import {
  removeSsoProvider,
  setSsoProvider,
  showSsoProvider,
  SSO_CALLBACK_PATH,
  SSO_JOIN_ROLES,
  SsoSettingsError,
  type SsoJoinRole,
} from "@/lib/people/sso-providers";
import { requireFlag, UsageError, type AdminCommand } from "./command";

const addUsage = `people add --email E --name N --role ${ROLES.join("|")} (--group bg_... | --platform) [--password P]`;
const roleUsage = `people role --email E --role ${ROLES.join("|")} (--group bg_... | --platform)`;
const removeUsage = "people remove --email E (--group bg_... | --platform)";
const twoFactorUsage = "people require-2fa (--group bg_... | --platform) (--on | --off)";
const ssoSetUsage = `people sso set (--group bg_... | --platform) --issuer URL --client-id ID [--client-secret S] --domain D [--domain D2...] [--default-role ${SSO_JOIN_ROLES.join("|")}]`;
const ssoShowUsage = "people sso show (--group bg_... | --platform)";
const ssoRemoveUsage = "people sso remove (--group bg_... | --platform)";
const organizationOptions = { group: { type: "string" }, platform: { type: "boolean" } } as const;

/** Bad settings and unknown groups are the operator's input: exit 2, nothing changed. */
async function asUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof SsoSettingsError || e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
}

const costUsage = `groups cost-roles --group bg_... (--set ${ROLES.join(",")} | --clear)`;

function roleList(text: string): Role[] {
  const roles = text
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
  for (const r of roles) {
    if (!roleSchema.safeParse(r).success) throw new UsageError(`unknown role "${r}" (known: ${ROLES.join(", ")})`);
  }
  return roles as Role[];
}

function organizationFlag(flags: Record<string, string | boolean | undefined>, usage: string): string {
  const group = typeof flags.group === "string" ? flags.group : undefined;
  if ((group === undefined) === (flags.platform !== true)) {
    throw new UsageError(`exactly one of --group and --platform\nusage: ${usage}`);
  }
  return group ?? "platform";
}

const membershipOptions = {
  email: { type: "string" },
  group: { type: "string" },
  platform: { type: "boolean" },
} as const;

export const peopleCommands: AdminCommand[] = [
  {
    name: "people add",
    usage: addUsage,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      role: { type: "string" },
      group: { type: "string" },
      platform: { type: "boolean" },
      password: { type: "string" },
    },
    async run(db, flags) {
      const email = requireFlag(flags, "email", addUsage);
      const [role] = roleList(requireFlag(flags, "role", addUsage));
      if (!role) throw new UsageError(`--role is required\nusage: ${addUsage}`);
      const organization = organizationFlag(flags, addUsage);
      const given = typeof flags.password === "string" ? flags.password : undefined;
      if (given !== undefined && given.length < 10) throw new UsageError("--password must have 10 characters or more");
      const password = given ?? randomBytes(12).toString("base64url");
      const name = typeof flags.name === "string" && flags.name.trim() ? flags.name.trim() : email;
      try {
        const added = await addPerson(db, { email, name, password, role, organization });
        // The password is printed once, like a key's secret, when the operator did not choose it.
        return { ...added, ...(given === undefined ? { password } : {}) };
      } catch (e) {
        if (e instanceof RangeError) throw new UsageError(e.message);
        throw e;
      }
    },
  },
  {
    name: "people role",
    usage: roleUsage,
    options: { ...membershipOptions, role: { type: "string" } },
    async run(db, flags) {
      const email = requireFlag(flags, "email", roleUsage);
      const [role] = roleList(requireFlag(flags, "role", roleUsage));
      const organization = organizationFlag(flags, roleUsage);
      if (!(await setMembership(db, { email, organization, role })))
        throw new UsageError(`${email} is not a member there`);
      return { email, organization, role };
    },
  },
  {
    name: "people remove",
    usage: removeUsage,
    options: membershipOptions,
    async run(db, flags) {
      const email = requireFlag(flags, "email", removeUsage);
      const organization = organizationFlag(flags, removeUsage);
      if (!(await setMembership(db, { email, organization, role: null }))) {
        throw new UsageError(`${email} is not a member there`);
      }
      return { email, organization, removed: true };
    },
  },
  {
    name: "people require-2fa",
    usage: twoFactorUsage,
    options: {
      group: { type: "string" },
      platform: { type: "boolean" },
      on: { type: "boolean" },
      off: { type: "boolean" },
    },
    async run(db, flags) {
      const organization = organizationFlag(flags, twoFactorUsage);
      if ((flags.on === true) === (flags.off === true)) {
        throw new UsageError(`exactly one of --on and --off\nusage: ${twoFactorUsage}`);
      }
      const on = flags.on === true;
      try {
        await setTwoFactorRequirementByOperator(db, organization, on);
      } catch (e) {
        if (e instanceof RangeError) throw new UsageError(e.message);
        throw e;
      }
      return { organization, requireTwoFactor: on };
    },
  },
  {
    name: "people sso set",
    usage: ssoSetUsage,
    options: {
      ...organizationOptions,
      issuer: { type: "string" },
      "client-id": { type: "string" },
      "client-secret": { type: "string" },
      domain: { type: "string", multiple: true },
      "default-role": { type: "string" },
    },
    async run(db, flags) {
      const organization = organizationFlag(flags, ssoSetUsage);
      const issuer = requireFlag(flags, "issuer", ssoSetUsage);
      const clientId = requireFlag(flags, "client-id", ssoSetUsage);
      const role = flags["default-role"];
      if (role !== undefined && !SSO_JOIN_ROLES.includes(role as SsoJoinRole)) {
        throw new UsageError(`--default-role must be one of ${SSO_JOIN_ROLES.join(", ")}\nusage: ${ssoSetUsage}`);
      }
      const domains = ((flags.domain as unknown as string[] | undefined) ?? []).flatMap((d) => d.split(","));
      const settings = await asUsage(() =>
        setSsoProvider(db, {
          organization,
          issuer,
          clientId,
          clientSecret: typeof flags["client-secret"] === "string" ? flags["client-secret"] : undefined,
          domains,
          defaultRole: role as SsoJoinRole | undefined,
        }),
      );
      // The secret is never printed back: only that one is set.
      return { ...settings, clientSecret: "set", redirectPath: SSO_CALLBACK_PATH };
    },
  },
  {
    name: "people sso show",
    usage: ssoShowUsage,
    options: organizationOptions,
    async run(db, flags) {
      const organization = organizationFlag(flags, ssoShowUsage);
      const settings = await asUsage(() => showSsoProvider(db, organization));
      if (!settings) throw new UsageError("no single sign-on is set for that organization");
      return { ...settings, redirectPath: SSO_CALLBACK_PATH };
    },
  },
  {
    name: "people sso remove",
    usage: ssoRemoveUsage,
    options: organizationOptions,
    async run(db, flags) {
      const organization = organizationFlag(flags, ssoRemoveUsage);
      if (!(await asUsage(() => removeSsoProvider(db, organization)))) {
        throw new UsageError("no single sign-on is set for that organization");
      }
      return { organization, removed: true };
    },
  },
  {
    name: "groups cost-roles",
    usage: costUsage,
    options: { group: { type: "string" }, set: { type: "string" }, clear: { type: "boolean" } },
    async run(db, flags) {
      const group = requireFlag(flags, "group", costUsage);
      if ((typeof flags.set === "string") === (flags.clear === true)) {
        throw new UsageError(`exactly one of --set and --clear\nusage: ${costUsage}`);
      }
      const roles = flags.clear === true ? [] : roleList(String(flags.set));
      const saved = await setCostRoles(db, group, roles);
      if (!saved) throw new UsageError(`no billing group ${group}`);
      return { billingGroupId: group, costRoles: saved };
    },
  },
];
