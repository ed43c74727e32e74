import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

export const PLATFORM_ORGANIZATION_ID = "org_platform";

/**
 * The organization of a billing group: made with the group's name the first time it is needed (migration 0014 made
 * one for every group that existed then).
 */
export async function organizationOfGroup(db: Executor, billingGroupId: string): Promise<string> {
  await db.execute(sql`INSERT INTO organizations (id, name, slug, billing_group_id, platform)
    SELECT 'org_' || id, name, id, id, false FROM billing_groups WHERE id = ${billingGroupId}
    ON CONFLICT DO NOTHING`);
  const [row] = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM organizations WHERE billing_group_id = ${billingGroupId}`,
  );
  if (!row) throw new RangeError(`no billing group ${billingGroupId}`);
  return row.id;
}
