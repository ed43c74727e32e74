import next from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...next,
  ...nextTs,
  {
    ignores: [
      ".next*/**",
      "node_modules/**",
      "data/**",
      "bench/results/**",
      "e2e/screenshots/**",
      "playwright-report/**",
      "test-results/**",
      "next-env.d.ts",
    ],
  },
  {
    // Every environment variable is read in lib/config/env.ts (README "Configuration"); tests and test support set
    // and read their own.
    files: ["app/**", "components/**", "lib/**", "instrumentation.ts", "proxy.ts"],
    ignores: ["lib/config/env.ts", "**/*.test.ts", "lib/testing/**", "lib/*/testing/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read environment variables in lib/config/env.ts." },
      ],
    },
  },
];

export default config;
