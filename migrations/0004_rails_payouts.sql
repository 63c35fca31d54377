DROP INDEX "transfers_merchant_id_idx";--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "failure_code" text;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "failure_message" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "kind" text DEFAULT 'transfer' NOT NULL;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "collection_id" text;--> statement-breakpoint
CREATE INDEX "transfers_merchant_kind_id_idx" ON "transfers" USING btree ("merchant_id","kind","id");--> statement-breakpoint
CREATE INDEX "transfers_collection_idx" ON "transfers" USING btree ("collection_id") WHERE "transfers"."collection_id" IS NOT NULL;