import type { ConnectorView, EntityInfo } from '../api.ts';

/** The connector picker shared by the search playground and the live-action runner. */
export function ConnectorSelect(props: {
  name: string;
  connectors: ConnectorView[];
  value: string;
  onChange: (connectorId: string) => void;
}) {
  return (
    <label>
      Connector
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.connectors.map((c) => (
          <option key={c.connector_id} value={c.connector_id}>
            {c.name} ({c.connector_type})
          </option>
        ))}
      </select>
    </label>
  );
}

/** The entity picker shared by the search playground and the live-action runner. */
export function EntitySelect(props: {
  name: string;
  entities: EntityInfo[];
  value: string;
  onChange: (entityName: string) => void;
}) {
  return (
    <label>
      Entity
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.entities.map((e) => (
          <option key={e.name} value={e.name}>
            {e.name}
          </option>
        ))}
      </select>
    </label>
  );
}
