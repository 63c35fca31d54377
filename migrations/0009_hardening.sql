ALTER TABLE "card_payments" ADD COLUMN "challenge_secret" text DEFAULT replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '') NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_clocks" ADD COLUMN "advancing_id" text;--> statement-breakpoint
ALTER TABLE "merchant_clocks" ADD COLUMN "advancing_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "checkout_secret" text DEFAULT replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '') NOT NULL;--> statement-breakpoint
ALTER TABLE "virtual_cards" ADD COLUMN "cvc_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "card_tokens_unexpired_idx" ON "card_tokens" USING btree ("merchant_id","expires_at") WHERE "card_tokens"."number" <> '';--> statement-breakpoint
CREATE INDEX "idempotency_keys_expiry_idx" ON "idempotency_keys" USING btree ("merchant_id","expires_at");--> statement-breakpoint
CREATE INDEX "scheduled_jobs_finished_idx" ON "scheduled_jobs" USING btree ("merchant_id","finished_at") WHERE "scheduled_jobs"."state" <> 'pending';--> statement-breakpoint
CREATE INDEX "webhook_attempts_merchant_time_idx" ON "webhook_attempts" USING btree ("merchant_id","attempted_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_ended_idx" ON "webhook_deliveries" USING btree ("merchant_id","updated_at") WHERE "webhook_deliveries"."state" <> 'pending';