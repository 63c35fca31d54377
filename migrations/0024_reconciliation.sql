CREATE TABLE "expected_payment_matches" (
	"posting_id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"expected_payment_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "expected_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"direction" text NOT NULL,
	"rail" text,
	"currency" text NOT NULL,
	"amount_min" bigint NOT NULL,
	"amount_max" bigint NOT NULL,
	"date_from" text NOT NULL,
	"date_to" text NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"window_end" timestamp (3) with time zone NOT NULL,
	"reference" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"state" text NOT NULL,
	"amount_matched" bigint NOT NULL,
	"matches" jsonb NOT NULL,
	"matched_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "expected_payments_merchant_idx" ON "expected_payments" USING btree ("merchant_id","id");