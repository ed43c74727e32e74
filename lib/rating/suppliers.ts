import { eq } from "drizzle-orm";
import type { Db, Executor } from "@/lib/db/client";
import { suppliers } from "@/lib/db/schema";
import { newId } from "@/lib/ids/ids";

export type Supplier = typeof suppliers.$inferSelect;

export interface CreateSupplierOptions {
  name: string;
  /** Gateway name as the switch reports it (FreeSWITCH `sip_gateway_name`); unique. */
  gatewayName?: string | null;
}

export async function createSupplier(db: Db, options: CreateSupplierOptions): Promise<Supplier> {
  const name = options.name.trim();
  if (!name) throw new RangeError("a supplier needs a name");
  const [supplier] = await db
    .insert(suppliers)
    .values({ id: newId("sup"), name, gatewayName: options.gatewayName?.trim() || null })
    .returning();
  return supplier;
}

export async function getSupplier(db: Executor, id: string): Promise<Supplier | undefined> {
  const [supplier] = await db.select().from(suppliers).where(eq(suppliers.id, id));
  return supplier;
}
