import type { ComponentChild } from 'preact';
import { useState } from 'preact/hooks';

type Obj = Record<string, unknown>;

/** The subset of JSON Schema (2020-12) that zod emits for the catalog's credentials, config and params. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  description?: string;
  default?: unknown;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  additionalProperties?: boolean | JsonSchema;
}

/** A schema the catalog publishes (a plain JSON object there), read as the subset the forms know. */
export const jsonSchema = (document: Record<string, unknown>): JsonSchema => document as JsonSchema;

const SECRET_NAME = /(secret|token|password|api_key|key)$/i;

/** The branches of a union, with `null` branches removed (zod writes nullable as anyOf [T, null]). */
function branches(schema: JsonSchema): JsonSchema[] {
  const list = schema.anyOf ?? schema.oneOf ?? [schema];
  return list.filter((s) => s.type !== 'null');
}

function unwrapNullable(schema: JsonSchema): JsonSchema {
  const list = branches(schema);
  return list.length === 1 && (schema.anyOf || schema.oneOf) ? list[0]! : schema;
}

/** A human name for a credential method: its description, or the fields it needs. */
function branchLabel(schema: JsonSchema, index: number): string {
  if (schema.description) return schema.description;
  const required = schema.required ?? Object.keys(schema.properties ?? {});
  return required.length > 0 ? required.join(' + ') : `option ${index + 1}`;
}

/** Which branch of a union the current value fits best (most of its keys are the branch's properties). */
function bestBranch(options: JsonSchema[], value: Obj): number {
  let best = 0;
  let bestScore = -1;
  options.forEach((option, index) => {
    const keys = Object.keys(option.properties ?? {});
    const score = Object.keys(value).filter((k) => keys.includes(k)).length;
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  });
  return best;
}

/**
 * A form generated from the JSON Schema the API publishes for a kind (credentials, config, replication_config):
 * unions become a method picker, objects fieldsets, enums selects; anything else is edited as JSON.
 */
export function SchemaForm(props: { name: string; schema: JsonSchema; value: Obj; onChange: (value: Obj) => void }) {
  const options = branches(props.schema);
  const [chosen, setChosen] = useState(() => bestBranch(options, props.value));
  const index = Math.min(chosen, options.length - 1);
  const schema = options[index] ?? {};
  return (
    <div class="schema-form">
      {options.length > 1 && (
        <label>
          Method
          <select
            name={`${props.name}.__method`}
            value={String(index)}
            onChange={(e) => {
              setChosen(Number(e.currentTarget.value));
              props.onChange({});
            }}
          >
            {options.map((option, i) => (
              <option key={branchLabel(option, i)} value={String(i)}>
                {branchLabel(option, i)}
              </option>
            ))}
          </select>
        </label>
      )}
      <ObjectFields name={props.name} schema={schema} value={props.value} onChange={props.onChange} />
    </div>
  );
}

function ObjectFields(props: { name: string; schema: JsonSchema; value: Obj; onChange: (value: Obj) => void }) {
  const properties = Object.entries(props.schema.properties ?? {});
  if (properties.length === 0) return <p class="muted">nothing to configure</p>;
  const required = new Set(props.schema.required ?? []);
  const set = (key: string, next: unknown) => {
    const copy = { ...props.value };
    if (next === undefined || next === '') delete copy[key];
    else copy[key] = next;
    props.onChange(copy);
  };
  return (
    <>
      {properties.map(([key, raw]) => (
        <Field
          key={key}
          name={`${props.name}.${key}`}
          label={key}
          schema={unwrapNullable(raw)}
          required={required.has(key)}
          value={props.value[key]}
          onChange={(next) => set(key, next)}
        />
      ))}
    </>
  );
}

function Field(props: {
  name: string;
  label: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const { schema } = props;
  const title = (
    <span>
      {props.label}
      {props.required && <span class="required"> *</span>}
      {schema.description && <span class="muted"> — {schema.description}</span>}
    </span>
  );
  const enumValues = schema.enum ?? (schema.const !== undefined ? [schema.const] : undefined);
  if (enumValues) {
    return (
      <label>
        {title}
        <select
          name={props.name}
          value={props.value === undefined ? '' : String(props.value)}
          onChange={(e) => props.onChange(e.currentTarget.value || undefined)}
        >
          <option value="">—</option>
          {enumValues.map((v) => (
            <option key={String(v)} value={String(v)}>
              {String(v)}
            </option>
          ))}
        </select>
      </label>
    );
  }
  if (schema.type === 'boolean') {
    return (
      <label class="inline">
        <input
          type="checkbox"
          name={props.name}
          checked={props.value === true}
          onChange={(e) => props.onChange(e.currentTarget.checked)}
        />
        {title}
      </label>
    );
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    return (
      <label>
        {title}
        <input
          type="number"
          name={props.name}
          value={props.value === undefined ? '' : String(props.value)}
          onInput={(e) => props.onChange(e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value))}
        />
      </label>
    );
  }
  if (schema.type === 'string') {
    const secret = SECRET_NAME.test(props.label);
    const placeholder = schema.format === 'date-time' ? '2024-01-01T00:00:00Z' : (schema.pattern ?? '');
    return (
      <label>
        {title}
        <input
          type={secret ? 'password' : 'text'}
          autoComplete="off"
          name={props.name}
          placeholder={placeholder}
          value={typeof props.value === 'string' ? props.value : ''}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      </label>
    );
  }
  if (schema.type === 'object' && schema.properties) {
    return (
      <fieldset>
        <legend>{title}</legend>
        <ObjectFields
          name={props.name}
          schema={schema}
          value={(props.value as Obj | undefined) ?? {}}
          onChange={(next) => props.onChange(Object.keys(next).length ? next : undefined)}
        />
      </fieldset>
    );
  }
  return <JsonField name={props.name} title={title} value={props.value} onChange={props.onChange} />;
}

function JsonField(props: { name: string; title: ComponentChild; value: unknown; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(props.value === undefined ? '' : JSON.stringify(props.value));
  const [invalid, setInvalid] = useState(false);
  return (
    <label>
      {props.title} <span class="muted">(JSON)</span>
      <textarea
        name={props.name}
        rows={2}
        class={invalid ? 'invalid' : ''}
        value={text}
        onInput={(e) => {
          const next = e.currentTarget.value;
          setText(next);
          if (next.trim() === '') {
            setInvalid(false);
            props.onChange(undefined);
            return;
          }
          try {
            props.onChange(JSON.parse(next));
            setInvalid(false);
          } catch {
            setInvalid(true);
          }
        }}
      />
    </label>
  );
}
