/** A labelled <select>; each option is a [value, text] pair. */
export function Picker(props: {
  label: string;
  name: string;
  value: string;
  options: readonly (readonly [value: string, text: string])[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A labelled text input bound to a string; the other attributes go to the <input>. */
export function TextInput({
  label,
  onChange,
  ...input
}: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  type?: string;
  autoComplete?: string;
  required?: boolean;
}) {
  return (
    <label>
      {label}
      <input {...input} onInput={(e) => onChange(e.currentTarget.value)} />
    </label>
  );
}

/** A labelled JSON textarea: raw text, parsed by whoever runs it. */
export function JsonEditor({
  label,
  onChange,
  ...textarea
}: {
  label: string;
  name: string;
  rows: number;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <textarea {...textarea} class="code" spellcheck={false} onInput={(e) => onChange(e.currentTarget.value)} />
    </label>
  );
}
