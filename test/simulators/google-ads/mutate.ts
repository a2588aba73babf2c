import { type AdsObject, type GoogleAdsData, linkLabel } from './data.ts';

/** One GoogleAdsError of a failed mutate: its errorCode oneof, message and the operation it is about. */
export interface AdsFailure {
  readonly errorCode: Record<string, string>;
  readonly message: string;
  readonly location?: { fieldPathElements: { fieldName: string; index?: number }[] };
}

export class MutateError extends Error {
  readonly failures: readonly AdsFailure[];
  constructor(failures: readonly AdsFailure[]) {
    super(failures[0]?.message ?? 'mutate failed');
    this.failures = failures;
  }
}

const UPDATABLE: Readonly<Record<'campaigns' | 'adGroups', readonly string[]>> = {
  campaigns: ['name', 'status'],
  adGroups: ['name', 'status', 'cpcBidMicros'],
};

type Collection = 'campaigns' | 'adGroups' | 'campaignLabels' | 'adGroupLabels' | 'labels';

function at(index: number, ...path: string[]) {
  return { fieldPathElements: [{ fieldName: 'operations', index }, ...path.map((fieldName) => ({ fieldName }))] };
}

function failure(index: number, code: Record<string, string>, message: string, ...path: string[]): AdsFailure {
  return { errorCode: code, message, location: at(index, ...path) };
}

/**
 * `customers/{cid}/<collection>:mutate` (https://developers.google.com/google-ads/api/rest/common/mutate): every
 * operation is validated first and the batch is applied atomically (no partialFailure), so a rejected request
 * changes nothing. Answers `{results: [{resourceName}]}` in operation order.
 */
export function applyMutate(
  data: GoogleAdsData,
  cid: string,
  collection: Collection,
  body: unknown,
): { results: { resourceName: string }[] } {
  const operations = (body as { operations?: unknown })?.operations;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new MutateError([
      { errorCode: { requestError: 'OPERATIONS_REQUIRED' }, message: 'At least one operation is required.' },
    ]);
  }
  const failures: AdsFailure[] = [];
  const apply: (() => string)[] = [];
  operations.forEach((op: unknown, index) => {
    const operation = (op ?? {}) as {
      update?: Record<string, unknown>;
      updateMask?: unknown;
      create?: Record<string, unknown>;
    };
    if (collection === 'campaigns' || collection === 'adGroups') {
      const update = operation.update;
      const target = (collection === 'campaigns' ? data.campaigns : data.adGroups).find(
        (o) => o.resourceName === update?.resourceName,
      );
      if (!update || !target || !String(update.resourceName).startsWith(`customers/${cid}/`)) {
        failures.push(
          failure(index, { mutateError: 'RESOURCE_NOT_FOUND' }, 'Resource was not found.', 'update', 'resource_name'),
        );
        return;
      }
      if (typeof operation.updateMask !== 'string' || operation.updateMask === '') {
        failures.push(
          failure(
            index,
            { fieldMaskError: 'FIELD_MASK_MISSING' },
            'The field mask must be set for an update.',
            'update_mask',
          ),
        );
        return;
      }
      const paths = operation.updateMask.split(',');
      for (const path of paths) {
        if (!UPDATABLE[collection].includes(path)) {
          failures.push(
            failure(
              index,
              { fieldMaskError: 'FIELD_NOT_FOUND' },
              `The field mask contained an invalid field: '${path}'.`,
              'update_mask',
            ),
          );
        } else if (path === 'status' && !['ENABLED', 'PAUSED'].includes(String(update.status))) {
          failures.push(
            failure(
              index,
              { requestError: 'INVALID_ENUM_VALUE' },
              'Status must be ENABLED or PAUSED.',
              'update',
              'status',
            ),
          );
        } else if (path === 'cpcBidMicros' && !/^\d+$/.test(String(update.cpcBidMicros))) {
          failures.push(
            failure(index, { biddingError: 'BID_INVALID' }, 'The bid is invalid.', 'update', 'cpc_bid_micros'),
          );
        } else if (path === 'name' && (typeof update.name !== 'string' || update.name === '')) {
          failures.push(failure(index, { stringLengthError: 'TOO_SHORT' }, 'The name is too short.', 'update', 'name'));
        }
      }
      apply.push(() => {
        for (const path of paths) target[path] = update[path];
        return target.resourceName;
      });
      return;
    }
    if (collection === 'labels') {
      const created = createLabel(data, cid, operation.create, index, apply.length);
      if ('failure' in created) failures.push(created.failure);
      else apply.push(created.apply);
      return;
    }
    const kind = collection === 'campaignLabels' ? 'campaign' : 'adGroup';
    const create = operation.create;
    const target = (kind === 'campaign' ? data.campaigns : data.adGroups).find(
      (o) => o.resourceName === create?.[kind],
    );
    const label = data.labels.find((l) => l.resourceName === create?.label);
    const mine = (o: AdsObject | undefined) => o?.resourceName.startsWith(`customers/${cid}/`);
    if (!target || !label || !mine(target) || !mine(label)) {
      failures.push(
        failure(
          index,
          { mutateError: 'RESOURCE_NOT_FOUND' },
          'Resource was not found.',
          'create',
          target ? 'label' : kind,
        ),
      );
      return;
    }
    if ((target.labels as string[]).includes(label.resourceName)) {
      failures.push(
        failure(index, { mutateError: 'RESOURCE_ALREADY_EXISTS' }, 'The label is already applied.', 'create'),
      );
      return;
    }
    apply.push(() => linkLabel(data, kind, target, label)?.resourceName ?? '');
  });
  if (failures.length > 0) throw new MutateError(failures);
  return { results: apply.map((run) => ({ resourceName: run() })) };
}

/**
 * LabelOperation.create (https://developers.google.com/google-ads/api/reference/rpc/latest/Label): `name` 1-80
 * characters and unique within the customer (LabelError.DUPLICATE_NAME), optional status and textLabel
 * {backgroundColor "#RRGGBB", description}. The id is assigned by the server.
 */
function createLabel(
  data: GoogleAdsData,
  cid: string,
  create: Record<string, unknown> | undefined,
  index: number,
  earlier: number,
): { failure: AdsFailure } | { apply: () => string } {
  const name = create?.name;
  if (typeof name !== 'string' || name.length < 1 || name.length > 80) {
    return {
      failure: failure(
        index,
        { stringLengthError: 'TOO_SHORT' },
        'The label name must be 1-80 characters.',
        'create',
        'name',
      ),
    };
  }
  const taken = data.labels.some((l) => l.resourceName.startsWith(`customers/${cid}/`) && l.name === name);
  if (taken) {
    return {
      failure: failure(
        index,
        { labelError: 'DUPLICATE_NAME' },
        'A label with this name already exists.',
        'create',
        'name',
      ),
    };
  }
  const color = (create?.textLabel as Record<string, unknown> | undefined)?.backgroundColor;
  if (color !== undefined && !/^#[0-9a-fA-F]{6}$/.test(String(color))) {
    return {
      failure: failure(index, { labelError: 'INVALID_LABEL_COLOR' }, 'Invalid label color.', 'create', 'text_label'),
    };
  }
  return {
    apply: () => {
      const id = String(9_000_000_000 + data.labels.length * 10 + earlier);
      const label: AdsObject = {
        resourceName: `customers/${cid}/labels/${id}`,
        id,
        name,
        status: typeof create?.status === 'string' ? create.status : 'ENABLED',
        textLabel: { backgroundColor: '#000000', description: '', ...(create?.textLabel as object | undefined) },
      };
      data.labels.push(label);
      return label.resourceName;
    },
  };
}
