CREATE TABLE "counterparties" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"name" text NOT NULL,
	"routing_number" text NOT NULL,
	"account_number" text NOT NULL,
	"account_type" text NOT NULL,
	"individual_id" text,
	"corrections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE "inbound_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"rail" text NOT NULL,
	"direction" text NOT NULL,
	"state" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"originator_name" text NOT NULL,
	"originator_routing_number" text NOT NULL,
	"originator_account_last4" text NOT NULL,
	"sec_code" text,
	"expected_arrival_at" timestamp (3) with time zone,
	"expected_settlement_at" timestamp (3) with time zone,
	"settled_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"returned_at" timestamp (3) with time zone,
	"return_code" text,
	"return_reason" text,
	"reference" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "dispute_behavior" text;--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "card_payments" ADD COLUMN "early_fraud_warning_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "return_untimely" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "dishonored_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "dishonor_code" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "dishonor_reason" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "contested_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "contest_code" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "contest_reason" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "counterparty_id" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "noc_code" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "notifications_of_change" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "counterparties_merchant_id_idx" ON "counterparties" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "disputes_merchant_id_idx" ON "disputes" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_card_payment_idx" ON "disputes" USING btree ("card_payment_id");--> statement-breakpoint
CREATE INDEX "inbound_transfers_merchant_id_idx" ON "inbound_transfers" USING btree ("merchant_id","id");