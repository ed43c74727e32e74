// The architecture as a rule (README "Architecture"), checked by `npm test` (`npx depcruise`): which folder may
// import which. Type-only imports count too: a type pulls its module's concept in as much as a value does.

/**
 * lib's concept folders, lowest layer first. A folder imports its own files and folders of LOWER layers only (never
 * a peer of its own layer, never a higher one), so no import runs up and no loop between folders can form. A new
 * folder must be placed here before anything may import it (rule `lib-folder-in-a-layer`).
 */
const LAYERS = [
  ["errors", "ids", "money", "random", "runtime", "config", "time"], // foundations: no domain, no database (time: a zone's wall-clock days, Intl only)
  ["db"], // schema, migrations, connections (PGlite/PostgreSQL, replica, Redis)
  ["http", "mail"], // request bodies, JSON answers, token-bucket limiters (per key, per address), the edge token; mail (SMTP)
  ["idempotency"], // stored answers of POSTs sent with an Idempotency-Key (apiRoute replays them)
  ["auth"], // keys, sessions, principals
  ["openapi"], // what a /v1 operation declares (each concept declares its own in operations.ts)
  ["audit"], // the append-only audit log: recording an event (every concept above), listing, CSV
  ["keys"], // self-service API keys: create, list, revoke (audited), when each was last used
  ["calls"], // the stored call row, listing, serialiser
  ["history"], // the optional history tier (ClickHouse): its schema, moving invoiced months of calls there
  ["billing"], // groups, accounts, balances, the ledger
  ["rating"], // rate decks, billing math, rating and re-rating calls
  ["alerts"], // the webhook outbox (events of any concept above and beside), endpoints, deliveries, balance thresholds
  ["limits"], // an account's real-time limits (concurrent calls, CPS, spend caps, destinations, velocity): authorizations enforce them
  ["authorizations", "usage", "ingest", "payments"], // concepts built on rated calls and balances; online payments and auto-recharge
  ["invoices", "exports", "quality"], // monthly invoices and credit/debit notes (usage rollups, ledger) and their documents; background CSV exports of calls; quality windows of calls and their alerts (the alerts outbox)
  ["people"], // people, organizations, members, invitations (better-auth): who signs in, with which role
  ["api", "portal", "demo"], // the HTTP edge, the portal's server helpers, the demo data
  ["admin"], // operator commands (CLI and the server's admin channel)
  ["server"], // process start
];

/** Test code: exempt from the layer order (a test may set up fixtures through a higher layer). */
const TEST_CODE = "\\.test\\.tsx?$|^lib/testing/";
/** Test support: only test code, benchmarks and other test support may import it. */
const TEST_SUPPORT = "^lib/testing/|^lib/[^/]+/testing/";

const folders = LAYERS.flat();
const any = (names) => `^lib/(${names.join("|")})/`;

const layerRules = LAYERS.flatMap((layer, rank) => {
  const lower = LAYERS.slice(0, rank).flat();
  return layer.map((folder) => ({
    name: `layer-${folder}`,
    comment:
      `lib/${folder} (layer ${rank}) may import only ` +
      (lower.length ? `lib/{${lower.join(",")}} (lower layers)` : "no other lib folder (a foundation)") +
      ": see LAYERS in .dependency-cruiser.cjs and the README's Architecture section",
    severity: "error",
    from: { path: `^lib/${folder}/`, pathNot: TEST_CODE },
    to: { path: "^lib/[^/]+/", pathNot: `${any([folder, ...lower])}|${TEST_SUPPORT}` },
  }));
});

/**
 * What a component may run in the browser from lib: zod schemas, money, billing math and the portal's pure helpers.
 * These import nothing else of lib (rule `client-safe-stays-client-safe`), so the set is closed. Server actions
 * (`"use server"` modules named *-actions.ts) are called over HTTP, not bundled: components may import those too.
 */
const CLIENT_SAFE = [
  "^lib/(calls|usage|billing|rating)/schemas\\.ts$",
  "^lib/money/[^/]+\\.ts$",
  "^lib/time/[^/]+\\.ts$",
  "^lib/http/query-params\\.ts$",
  "^lib/alerts/event-types\\.ts$",
  "^lib/rating/billing-math\\.ts$",
  "^lib/rating/deck-review\\.ts$",
  "^lib/limits/live-state\\.ts$",
  "^lib/portal/(format|call-filters|call-columns|call-status|period|usage-query|balance-status|report|pages|dialled-number|how-to-pay|query-keys)\\.ts$",
].join("|");
const SERVER_ACTION = "^lib/[^/]+/[^/]+-actions\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No module imports itself through others.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-folder-in-a-layer",
      comment: "Every lib folder is placed in LAYERS (.dependency-cruiser.cjs) before it is used.",
      severity: "error",
      from: {},
      to: { path: "^lib/[^/]+/", pathNot: `${any(folders)}|^lib/testing/` },
    },
    {
      name: "lib-folder-in-a-layer-imports",
      comment: "Every lib folder is placed in LAYERS (.dependency-cruiser.cjs) before it imports lib.",
      severity: "error",
      from: { path: "^lib/[^/]+/", pathNot: `${any(folders)}|${TEST_CODE}` },
      to: { path: "^lib/" },
    },
    ...layerRules,
    {
      name: "lib-not-to-entries",
      comment: "lib is the domain: it never imports routes, UI, the CLI, tests, benchmarks or scripts.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|components|cli|tests|e2e|bench|scripts)/|^(proxy|instrumentation)\\.ts$" },
    },
    {
      name: "components-not-to-app",
      comment: "components are UI by feature: they never import routes (a server action lives in lib, *-actions.ts).",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^(app|cli|tests|e2e|bench|scripts)/|^(proxy|instrumentation)\\.ts$" },
    },
    {
      name: "components-client-safe-lib",
      comment:
        "A component imports from lib only client-safe modules (CLIENT_SAFE in .dependency-cruiser.cjs) and server " +
        "actions (*-actions.ts); any lib module as a type.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^lib/", pathNot: `${CLIENT_SAFE}|${SERVER_ACTION}`, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "client-safe-stays-client-safe",
      comment: "A client-safe module imports only other client-safe modules of lib (and no node built-ins).",
      severity: "error",
      from: { path: CLIENT_SAFE },
      to: { path: "^lib/", pathNot: CLIENT_SAFE, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "client-safe-no-node",
      comment: "A client-safe module runs in the browser: no node built-ins.",
      severity: "error",
      from: { path: CLIENT_SAFE },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "calls-read-through-the-port",
      comment:
        "Outside lib/calls, calls are read through CallReads (lib/calls/call-store.ts), so another store of calls can " +
        "answer the same questions; the hot table's read functions are its implementation (types may be imported).",
      severity: "error",
      from: { pathNot: `^lib/calls/|${TEST_CODE}|^(tests|e2e|bench)/` },
      to: {
        path: "^lib/calls/(get-call|period-usage|spend-per-day|usage-sums)\\.ts$",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "test-support-only-from-tests",
      comment: "lib/testing and lib/<concept>/testing are for tests, benchmarks and e2e only.",
      severity: "error",
      from: { pathNot: `${TEST_CODE}|${TEST_SUPPORT}|^(tests|e2e|bench)/` },
      to: { path: TEST_SUPPORT },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next[^/]*|data|bench/results|e2e/screenshots)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
