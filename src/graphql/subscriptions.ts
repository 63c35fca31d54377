/**
 * Every module's GraphQL subscriptions. schema.ts must evaluate this before `builder.toSchema()`:
 * it is imported by errors.ts, which schema.ts imports first (see the note there).
 */
import '../modules/events/events.subscriptions.graphql.ts';
