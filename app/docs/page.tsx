import type { Metadata } from "next";
import type { ReactNode } from "react";
import { openApiDocument } from "@/lib/api/openapi";
import type { OpenApiOperation } from "@/lib/api/openapi-types";

export const metadata: Metadata = { title: "API reference" };
// Rendered per request: the proxy's CSP nonce must reach Next's own scripts (a prerendered page has none).
export const dynamic = "force-dynamic";

type JsonSchema = Record<string, unknown>;

const METHOD_STYLE: Record<string, string> = {
  get: "bg-sky-100 text-sky-800",
  post: "bg-emerald-100 text-emerald-800",
};

/** `code` spans in the document's prose, rendered as <code>. */
function Prose({ text }: { text: string }) {
  const parts = text.split(/(`[^`]+`)/g);
  return (
    <>
      {parts.map((part, i) =>
        part.startsWith("`") && part.endsWith("`") ? (
          <code key={i} className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-800">
            {part.slice(1, -1)}
          </code>
        ) : (
          <span key={i}>{part}</span>
        ),
      )}
    </>
  );
}

const refName = (ref: string) => ref.split("/").pop() ?? ref;

/** A compact, readable type: `string | null`, `Call[]`, `inbound | outbound`. */
function TypeOf({ schema }: { schema: JsonSchema | undefined }): ReactNode {
  if (!schema) return "any";
  if (typeof schema.$ref === "string") {
    const name = refName(schema.$ref);
    return (
      <a href={`#schema-${name}`} className="text-sky-700 underline decoration-sky-300 hover:decoration-sky-700">
        {name}
      </a>
    );
  }
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (alternatives)
    return join(
      alternatives.map((s, i) => <TypeOf key={i} schema={s} />),
      " | ",
    );
  if (Array.isArray(schema.allOf)) return <TypeOf schema={(schema.allOf as JsonSchema[])[0]} />;
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema.const);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [String(schema.type)] : [];
  const rendered = types.map((t, i) =>
    t === "array" ? (
      <span key={i}>
        <TypeOf schema={schema.items as JsonSchema} />
        []
      </span>
    ) : (
      <span key={i}>{typeof schema.format === "string" && t === "string" ? `string (${schema.format})` : t}</span>
    ),
  );
  return rendered.length ? join(rendered, " | ") : "any";
}

function join(nodes: ReactNode[], separator: string): ReactNode {
  return nodes.map((n, i) => (
    <span key={i}>
      {i > 0 ? separator : null}
      {n}
    </span>
  ));
}

function constraints(schema: JsonSchema): string {
  const out: string[] = [];
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  if (schema.minimum !== undefined) out.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) out.push(`max ${schema.maximum}`);
  if (schema.maxLength !== undefined) out.push(`max length ${schema.maxLength}`);
  // The control-character guard is a pattern too; it says nothing a reader needs.
  if (typeof schema.pattern === "string" && !schema.pattern.startsWith("^[^\\u0000"))
    out.push(`pattern ${schema.pattern}`);
  return out.join(", ");
}

function Operation({ method, path, op }: { method: string; path: string; op: OpenApiOperation }) {
  return (
    <section id={op.operationId} className="scroll-mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h3 className="flex flex-wrap items-center gap-3 text-lg font-semibold">
        <span className={`rounded px-2 py-0.5 font-mono text-xs uppercase ${METHOD_STYLE[method] ?? "bg-slate-100"}`}>
          {method}
        </span>
        <span className="font-mono">{path}</span>
        <span className="text-base font-normal text-slate-500">{op.summary}</span>
      </h3>
      <p className="mt-2 text-sm leading-6 text-slate-700">
        <Prose text={op.description} />
      </p>
      <p className="mt-2 text-xs text-slate-500">
        {op.security && op.security.length === 0 ? (
          "No authentication."
        ) : (
          <>
            Scope: <code className="font-mono">{op["x-scope"]}</code>
            {op["x-platform-only"] ? " · platform keys and staff only" : ""}
          </>
        )}
      </p>

      {op.parameters && op.parameters.length > 0 && (
        <table className="mt-4 w-full text-left text-sm">
          <caption className="mb-1 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
            Parameters
          </caption>
          <thead className="text-xs text-slate-500">
            <tr>
              <th className="py-1 pr-3 font-medium">name</th>
              <th className="py-1 pr-3 font-medium">in</th>
              <th className="py-1 pr-3 font-medium">type</th>
              <th className="py-1 font-medium">description</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {op.parameters.map((p) => (
              <tr key={p.name} className="align-top">
                <td className="py-1.5 pr-3 font-mono whitespace-nowrap">
                  {p.name}
                  {p.required && <span className="ml-1 text-rose-600">*</span>}
                </td>
                <td className="py-1.5 pr-3 text-slate-500">{p.in}</td>
                <td className="py-1.5 pr-3 font-mono text-xs">
                  <TypeOf schema={p.schema} />
                </td>
                <td className="py-1.5 text-slate-700">
                  {p.description && <Prose text={p.description} />}
                  {constraints(p.schema) && (
                    <span className="block text-xs text-slate-500">{constraints(p.schema)}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {op.requestBody && (
        <p className="mt-4 text-sm">
          <span className="text-xs font-semibold uppercase tracking-wide text-slate-500">Body </span>
          <span className="font-mono text-xs">
            <TypeOf schema={Object.values(op.requestBody.content)[0]?.schema} />
          </span>
        </p>
      )}

      <table className="mt-4 w-full text-left text-sm">
        <caption className="mb-1 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
          Responses
        </caption>
        <tbody className="divide-y divide-slate-100">
          {Object.entries(op.responses).map(([status, r]) => {
            const [contentType, media] = Object.entries(r.content ?? {})[0] ?? [];
            return (
              <tr key={status} className="align-top">
                <td
                  className={`w-14 py-1.5 pr-3 font-mono ${status.startsWith("2") ? "text-emerald-700" : "text-rose-700"}`}
                >
                  {status}
                </td>
                <td className="py-1.5 pr-3 text-slate-700">
                  <Prose text={r.description} />
                </td>
                <td className="py-1.5 text-right font-mono text-xs text-slate-500">
                  {media && <TypeOf schema={media.schema} />}
                  {contentType && <span className="block">{contentType}</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function SchemaTable({ name, schema }: { name: string; schema: JsonSchema }) {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return (
    <section id={`schema-${name}`} className="scroll-mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h3 className="font-mono text-base font-semibold">{name}</h3>
      {typeof schema.description === "string" && (
        <p className="mt-1 text-sm text-slate-600">
          <Prose text={schema.description} />
        </p>
      )}
      {Object.keys(properties).length > 0 ? (
        <table className="mt-3 w-full text-left text-sm">
          <tbody className="divide-y divide-slate-100">
            {Object.entries(properties).map(([prop, s]) => (
              <tr key={prop} className="align-top">
                <td className="w-48 py-1.5 pr-3 font-mono whitespace-nowrap">
                  {prop}
                  {!required.has(prop) && <span className="ml-1 text-xs text-slate-500">optional</span>}
                </td>
                <td className="w-56 py-1.5 pr-3 font-mono text-xs">
                  <TypeOf schema={s} />
                </td>
                <td className="py-1.5 text-slate-700">
                  {typeof s.description === "string" && <Prose text={s.description} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="mt-2 font-mono text-xs">
          <TypeOf schema={schema} />
        </p>
      )}
    </section>
  );
}

/** The API reference, rendered from the same OpenAPI document /v1/openapi.json serves. */
export default function DocsPage() {
  const doc = openApiDocument();
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );
  return (
    <div className="mx-auto flex max-w-6xl gap-8 px-6 py-10">
      <nav className="sticky top-6 hidden h-fit w-56 shrink-0 text-sm lg:block" aria-label="API reference">
        {doc.tags.map((tag) => (
          <div key={tag.name} className="mb-4">
            <p className="font-semibold text-slate-900">{tag.name}</p>
            <ul className="mt-1 space-y-1">
              {operations
                .filter((o) => o.op.tags.includes(tag.name))
                .map((o) => (
                  <li key={o.op.operationId}>
                    <a href={`#${o.op.operationId}`} className="text-slate-600 hover:text-slate-900">
                      {o.op.summary}
                    </a>
                  </li>
                ))}
            </ul>
          </div>
        ))}
        <p className="font-semibold text-slate-900">
          <a href="#schemas">Schemas</a>
        </p>
      </nav>
      <main className="min-w-0 flex-1">
        <h1 className="text-3xl font-semibold">{doc.info.title}</h1>
        <p className="mt-1 text-sm text-slate-500">
          Version {doc.info.version} · OpenAPI {doc.openapi} ·{" "}
          <a href="/v1/openapi.json" className="text-sky-700 underline">
            openapi.json
          </a>
        </p>
        <p className="mt-4 max-w-3xl leading-7 text-slate-700">
          <Prose text={doc.info.description} />
        </p>
        <pre
          // Wider than a phone: it scrolls sideways, so the keyboard must reach it too.
          tabIndex={0}
          className="mt-4 overflow-x-auto rounded-lg bg-slate-900 p-4 font-mono text-sm text-slate-100"
        >
          {"curl -H 'Authorization: Bearer ck_...' \\\n  '<base-url>/v1/calls?pageSize=50&direction=outbound'"}
        </pre>

        {doc.tags.map((tag) => (
          <div key={tag.name} className="mt-10">
            <h2 className="text-xl font-semibold">{tag.name}</h2>
            <p className="text-sm text-slate-500">{tag.description}</p>
            <div className="mt-4 space-y-6">
              {operations
                .filter((o) => o.op.tags.includes(tag.name))
                .map((o) => (
                  <Operation key={o.op.operationId} method={o.method} path={o.path} op={o.op} />
                ))}
            </div>
          </div>
        ))}

        <h2 id="schemas" className="mt-12 text-xl font-semibold">
          Schemas
        </h2>
        <div className="mt-4 space-y-6">
          {Object.entries(doc.components.schemas).map(([name, schema]) => (
            <SchemaTable key={name} name={name} schema={schema} />
          ))}
        </div>
      </main>
    </div>
  );
}
