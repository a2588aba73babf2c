export { changeEventId, changeEventView } from './change-event-view.ts';
export { createDeliverySender, type DeliverySender } from './delivery-sender.ts';
export { newEndpointSecret, signedHeaders } from './endpoint-secret.ts';
export { endpointUrlProblem } from './endpoint-url.ts';
