/** Headers every answer carries, pages and API alike. */
const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WebAssembly and data files that must be loaded from node_modules, not bundled.
  // fontkit (invoice PDFs' fonts) is loaded only when a PDF needs it: kept out of the server bundle too.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@pdf-lib/fontkit", "@clickhouse/client"],
  // Lets tests and parallel builds use their own output folder.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  experimental: {
    // `next start` loads each route's code with the route's first request, not every page and route at start (Next's
    // default): a server that only takes CDRs never holds the portal's pages, sign-in, payments or decks. Server RSS
    // after start on PostgreSQL 136 -> 110 MiB (bench/ingest-fresh.ts); the first request of a route pays its load once.
    preloadEntriesOnStart: false,
  },
  reactStrictMode: true,
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders },
      // HSTS only on answers served over https: X-Forwarded-Proto as lib/server/forwarded-headers.ts left it
      // (a trusted proxy's, or PUBLIC_BASE_URL's scheme; a client's own is removed before this rule is read).
      // Over plain http it would be meaningless (RFC 6797 8.1). The same policy as lib/api/method-guard.ts's answers.
      {
        source: "/:path*",
        has: [{ type: "header", key: "x-forwarded-proto", value: "(?:https|HTTPS)(?:\\s*,.*)?" }],
        headers: [{ key: "Strict-Transport-Security", value: "max-age=63072000; includeSubDomains" }],
      },
      // JSON answers are never rendered as documents: the strictest policy costs nothing.
      {
        source: "/v1/:path*",
        headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" }],
      },
    ];
  },
};

export default nextConfig;
