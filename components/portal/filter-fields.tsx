import { Field, FieldError, fieldErrorId, inputClass } from "@/components/ui/field";

// The filter fields the call log and the usage report both offer, written once: same labels,
// same options, same URL values. Each form keeps its own state and grid placement.

const controlClass = `mt-1 ${inputClass()}`;

export type Direction = "inbound" | "outbound";

/**
 * From and until days (yyyy-mm-dd, inclusive); each bounds the other's picker. `zone` names the days' zone in the
 * labels. A range the server would refuse (From after Until) is said here, beside the fields (`error`), and both
 * fields are marked invalid, instead of a failed load further down.
 */
export function DateRangeFields({
  id,
  from,
  until,
  zone,
  error,
  onChange,
}: {
  id: string;
  from?: string;
  until?: string;
  zone?: string;
  error?: string | null;
  onChange: (patch: { from?: string } | { until?: string }) => void;
}) {
  const suffix = zone ? ` (${zone})` : "";
  const errorId = fieldErrorId(`${id}-range`);
  const invalid = Boolean(error);
  // Both fields and what is wrong with them sit together in two columns of the form's grid.
  return (
    <div className="col-span-2 grid grid-cols-2 gap-x-3">
      <Field id={`${id}-from`} label={`From${suffix}`}>
        <input
          id={`${id}-from`}
          type="date"
          value={from ?? ""}
          max={until}
          aria-invalid={invalid}
          aria-describedby={invalid ? errorId : undefined}
          onChange={(e) => onChange({ from: e.target.value || undefined })}
          className={`mt-1 ${inputClass({ invalid })}`}
        />
      </Field>
      <Field id={`${id}-until`} label={`Until${suffix}`}>
        <input
          id={`${id}-until`}
          type="date"
          value={until ?? ""}
          min={from}
          aria-invalid={invalid}
          aria-describedby={invalid ? errorId : undefined}
          onChange={(e) => onChange({ until: e.target.value || undefined })}
          className={`mt-1 ${inputClass({ invalid })}`}
        />
      </Field>
      {error ? (
        <div className="col-span-2" role="alert" data-testid="range-error">
          <FieldError id={errorId}>{error}</FieldError>
        </div>
      ) : null}
    </div>
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

/** One choice among named things ("All accounts" / "All suppliers" is no filter). */
function ChoiceField({
  id,
  label,
  anyLabel,
  options,
  value,
  onChange,
  className,
}: {
  id: string;
  label: string;
  anyLabel: string;
  options: { id: string; name: string }[];
  value?: string;
  onChange: (value: string | undefined) => void;
  className?: string;
}) {
  return (
    <Field id={id} label={label} className={className}>
      <select
        id={id}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
        className={controlClass}
      >
        <option value="">{anyLabel}</option>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A platform session's account filter; "All accounts" is no filter. */
export function AccountField(props: {
  id: string;
  accounts: { id: string; name: string }[];
  value?: string;
  onChange: (account: string | undefined) => void;
  className?: string;
}) {
  return (
    <ChoiceField
      {...props}
      id={`${props.id}-account`}
      label="Account"
      anyLabel="All accounts"
      options={props.accounts}
    />
  );
}

/** A cost session's supplier filter (the server names suppliers to cost sessions only). */
export function SupplierField(props: {
  id: string;
  suppliers: { id: string; name: string }[];
  value?: string;
  onChange: (supplier: string | undefined) => void;
  className?: string;
}) {
  return (
    <ChoiceField
      {...props}
      id={`${props.id}-supplier`}
      label="Supplier"
      anyLabel="All suppliers"
      options={props.suppliers}
    />
  );
}
