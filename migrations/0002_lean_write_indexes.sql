DROP INDEX "ledger_entries_merchant_idx";--> statement-breakpoint
DROP INDEX "card_payments_collection_idx";--> statement-breakpoint
CREATE INDEX "card_payments_collection_idx" ON "card_payments" USING btree ("collection_id") WHERE "card_payments"."collection_id" IS NOT NULL;