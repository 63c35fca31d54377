CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"card_payment_id" text NOT NULL,
	"state" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"inquiry" boolean NOT NULL,
	"fee" bigint NOT NULL,
	"evidence" jsonb NOT NULL,
	"evidence_submitted_at" timestamp (3) with time zone,
	"evidence_due_by" timestamp (3) with time zone NOT NULL,
	"review_ends_at" timestamp (3) with time zone,
	"outcome_reason" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "dispute_behavior" text;--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "early_fraud_warning_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "disputes_merchant_id_idx" ON "disputes" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_card_payment_idx" ON "disputes" USING btree ("card_payment_id");