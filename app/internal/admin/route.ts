import { handleAdminRequest } from "@/lib/admin/admin-channel";

export const dynamic = "force-dynamic";

export const POST = handleAdminRequest;
