import Link from "next/link";

/** The 404's text and way back, without a landmark: the page around it (the portal's layout or the root 404) has the main. */
export function NotFoundMessage() {
  return (
    <div className="text-center">
      <p className="text-sm font-semibold text-brand-600">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="mt-2 text-sm text-slate-600">The page you asked for does not exist.</p>
      <Link
        href="/"
        className="mt-6 inline-block rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700"
      >
        Back to the dashboard
      </Link>
    </div>
  );
}
