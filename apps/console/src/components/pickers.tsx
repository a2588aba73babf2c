import { useMemo, useState } from 'preact/hooks';
import type { Api, ConnectorView, EntityInfo, KindInfo } from '../api.ts';
import { Picker } from './fields.tsx';

/** What the search playground and the live-action runner get from the app. */
export interface ConnectorToolProps {
  api: Api;
  kinds: KindInfo[];
  connectors: ConnectorView[];
  initialConnector: string | null;
}

/**
 * The connector picked (at first the one selected on the connectors tab) and the entity picked among those of its
 * kind that `offers` keeps (the first one until another is picked). `offers` must be the same function every render.
 */
export function useConnectorAndEntity(props: ConnectorToolProps, offers: (entity: EntityInfo) => boolean) {
  const [connectorId, setConnectorId] = useState(props.initialConnector ?? props.connectors[0]?.connector_id ?? '');
  const connector = props.connectors.find((c) => c.connector_id === connectorId);
  const kind = props.kinds.find((k) => k.connector_type.toLowerCase() === connector?.connector_type.toLowerCase());
  const entities = useMemo(() => kind?.entities.filter(offers) ?? [], [kind, offers]);
  const [entityName, setEntityName] = useState('');
  const entity = entities.find((e) => e.name === entityName) ?? entities[0];
  return { connectors: props.connectors, connectorId, setConnectorId, connector, entities, entity, setEntityName };
}

/** The connector and entity pickers, named `<prefix>_connector` and `<prefix>_entity`. */
export function ConnectorAndEntityPickers(props: { prefix: string; picked: ReturnType<typeof useConnectorAndEntity> }) {
  const { picked } = props;
  return (
    <>
      <Picker
        label="Connector"
        name={`${props.prefix}_connector`}
        value={picked.connectorId}
        options={picked.connectors.map((c) => [c.connector_id, `${c.name} (${c.connector_type})`])}
        onChange={picked.setConnectorId}
      />
      <Picker
        label="Entity"
        name={`${props.prefix}_entity`}
        value={picked.entity?.name ?? ''}
        options={picked.entities.map((e) => [e.name, e.name])}
        onChange={picked.setEntityName}
      />
    </>
  );
}
