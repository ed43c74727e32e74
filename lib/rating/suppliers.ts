import { asc, eq } from "drizzle-orm";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { ChangeContext } from "@/lib/billing/change-context";
import type { Db, Executor } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { suppliers } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import { newId } from "@/lib/ids/ids";
import type { SupplierJson } from "./schemas";

export type Supplier = typeof suppliers.$inferSelect;

export interface CreateSupplierOptions {
  name: string;
  /** Gateway name as the switch reports it (FreeSWITCH `sip_gateway_name`); unique. */
  gatewayName?: string | null;
}

export interface SupplierChanges {
  name?: string;
  /** null removes it. */
  gatewayName?: string | null;
}

export function toSupplierJson(s: Supplier): SupplierJson {
  return { id: s.id, name: s.name, gatewayName: s.gatewayName, createdAt: s.createdAt.toISOString() };
}

/** Another supplier maps the gateway: 409 naming the field. */
function gatewayTaken(gatewayName: string | null | undefined): ApiError {
  return new ApiError("conflict", `Another supplier already maps the gateway ${JSON.stringify(gatewayName)}.`, [
    { param: "gatewayName", message: "already used by another supplier" },
  ]);
}

/**
 * Creates a supplier (POST /v1/suppliers, `suppliers create`). With `by`, the audit event `supplier.created` is
 * written in the same transaction; 409 naming `gatewayName` when another supplier maps the gateway.
 */
export async function createSupplier(db: Db, options: CreateSupplierOptions, by?: ChangeContext): Promise<Supplier> {
  const name = options.name.trim();
  if (!name) throw new RangeError("a supplier needs a name");
  try {
    return await db.transaction(async (tx) => {
      const [supplier] = await tx
        .insert(suppliers)
        .values({ id: newId("sup"), name, gatewayName: options.gatewayName?.trim() || null })
        .returning();
      if (by) {
        await recordAuditEvent(tx, {
          actor: by.actor,
          action: "supplier.created",
          billingGroupId: null,
          targetType: "supplier",
          targetId: supplier.id,
          address: by.address,
          after: toSupplierJson(supplier),
        });
      }
      return supplier;
    });
  } catch (error) {
    if (isUniqueViolation(error, "suppliers_gateway_name_key")) throw gatewayTaken(options.gatewayName);
    throw error;
  }
}

/** Changes a supplier's name or gateway (PATCH /v1/suppliers/{id}) with `supplier.updated` (before and after). */
export async function updateSupplier(
  db: Db,
  id: string,
  changes: SupplierChanges,
  by: ChangeContext,
): Promise<Supplier> {
  try {
    return await db.transaction(async (tx) => {
      const [before] = await tx.select().from(suppliers).where(eq(suppliers.id, id)).for("update");
      if (!before) throw new ApiError("not_found", `No supplier with id ${JSON.stringify(id.slice(0, 64))}.`);
      const set = {
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.gatewayName !== undefined ? { gatewayName: changes.gatewayName } : {}),
      };
      if (Object.keys(set).length === 0) return before;
      const [after] = await tx.update(suppliers).set(set).where(eq(suppliers.id, id)).returning();
      await recordAuditEvent(tx, {
        actor: by.actor,
        action: "supplier.updated",
        billingGroupId: null,
        targetType: "supplier",
        targetId: id,
        address: by.address,
        before: toSupplierJson(before),
        after: toSupplierJson(after),
      });
      return after;
    });
  } catch (error) {
    if (isUniqueViolation(error, "suppliers_gateway_name_key")) throw gatewayTaken(changes.gatewayName);
    throw error;
  }
}

export async function getSupplier(db: Executor, id: string): Promise<Supplier | undefined> {
  const [supplier] = await db.select().from(suppliers).where(eq(suppliers.id, id));
  return supplier;
}

/** Every supplier, by name (a platform has a handful). */
export async function listSuppliers(db: Executor): Promise<Supplier[]> {
  return db.select().from(suppliers).orderBy(asc(suppliers.name), asc(suppliers.id));
}
