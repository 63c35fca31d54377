import { nodeKind } from '../../graphql/node.ts';
import { eventsByIds } from './events.service.ts';
import { EventRef } from './events.subscriptions.graphql.ts';

// The event and events queries are derived from their operations (webhooks.operations.ts).
nodeKind('event', EventRef, eventsByIds);
