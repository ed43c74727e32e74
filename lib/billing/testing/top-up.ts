import type { Db } from "@/lib/db/client";
import type { ChangeContext } from "../change-context";
import { moveBalance } from "../move-balance";

const BY_TEST: ChangeContext = { actor: { type: "system", id: null, label: "test" }, address: null };

/** Funds a group in a test as an operator would: the audited top-up (balance, ledger entry, audit event). */
export function topUp(db: Db, groupId: string, amountMicros: bigint) {
  return moveBalance(db, groupId, { kind: "topup", amountMicros, description: "Top-up" }, BY_TEST);
}
