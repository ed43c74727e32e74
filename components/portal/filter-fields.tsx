import { Field, inputClass } from "@/components/ui/field";

// The filter fields the call log and the usage report both offer, written once: same labels,
// same options, same URL values. Each form keeps its own state and grid placement.

const controlClass = `mt-1 ${inputClass()}`;

export type Direction = "inbound" | "outbound";

/** From and until days (yyyy-mm-dd, inclusive); each bounds the other's picker. `zone` names the days' zone in the labels. */
export function DateRangeFields({
  id,
  from,
  until,
  zone,
  onChange,
}: {
  id: string;
  from?: string;
  until?: string;
  zone?: string;
  onChange: (patch: { from?: string } | { until?: string }) => void;
}) {
  const suffix = zone ? ` (${zone})` : "";
  return (
    <>
      <Field id={`${id}-from`} label={`From${suffix}`}>
        <input
          id={`${id}-from`}
          type="date"
          value={from ?? ""}
          max={until}
          onChange={(e) => onChange({ from: e.target.value || undefined })}
          className={controlClass}
        />
      </Field>
      <Field id={`${id}-until`} label={`Until${suffix}`}>
        <input
          id={`${id}-until`}
          type="date"
          value={until ?? ""}
          min={from}
          onChange={(e) => onChange({ until: e.target.value || undefined })}
          className={controlClass}
        />
      </Field>
    </>
  );
}

export function DirectionField({
  id,
  value,
  onChange,
}: {
  id: string;
  value?: Direction;
  onChange: (direction: Direction | undefined) => void;
}) {
  return (
    <Field id={`${id}-direction`} label="Direction">
      <select
        id={`${id}-direction`}
        value={value ?? ""}
        onChange={(e) => onChange((e.target.value || undefined) as Direction | undefined)}
        className={controlClass}
      >
        <option value="">Any direction</option>
        <option value="outbound">Outbound</option>
        <option value="inbound">Inbound</option>
      </select>
    </Field>
  );
}

/** A platform session's account filter; "All accounts" is no filter. */
export function AccountField({
  id,
  accounts,
  value,
  onChange,
  className,
}: {
  id: string;
  accounts: { id: string; name: string }[];
  value?: string;
  onChange: (account: string | undefined) => void;
  className?: string;
}) {
  return (
    <Field id={`${id}-account`} label="Account" className={className}>
      <select
        id={`${id}-account`}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
        className={controlClass}
      >
        <option value="">All accounts</option>
        {accounts.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </select>
    </Field>
  );
}
