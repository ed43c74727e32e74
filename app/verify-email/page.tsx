import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/people/auth-card";
import { ErrorState } from "@/components/ui/error-state";
import { getDb } from "@/lib/db/client";
import { verifyEmail } from "@/lib/people/password-reset";

export const metadata: Metadata = { title: "Confirm your email" };

export default async function VerifyEmailPage({ searchParams }: { searchParams: Promise<Record<string, unknown>> }) {
  const params = await searchParams;
  const confirmed = typeof params.token === "string" && (await verifyEmail(await getDb(), params.token));
  return (
    <AuthCard title="Confirm your email">
      {confirmed ? (
        <p className="mt-4 text-sm text-slate-700">Your email address is confirmed.</p>
      ) : (
        <ErrorState className="mt-4">This link has expired or is not valid. Sign in to get a new one.</ErrorState>
      )}
      <p className="mt-4 text-sm">
        <Link
          href={confirmed ? "/sign-in?verified=1" : "/sign-in"}
          className="font-medium text-brand-700 hover:underline"
        >
          Go to sign-in
        </Link>
      </p>
    </AuthCard>
  );
}
