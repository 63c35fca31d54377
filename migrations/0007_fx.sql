CREATE TABLE "fx_conversions" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"state" text NOT NULL,
	"quote_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"target_currency" text NOT NULL,
	"rate" text NOT NULL,
	"target_amount" bigint NOT NULL,
	"fee" bigint NOT NULL,
	"reference" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fx_quotes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"state" text NOT NULL,
	"source_currency" text NOT NULL,
	"target_currency" text NOT NULL,
	"rate" text NOT NULL,
	"sell_rate" text NOT NULL,
	"mid_rate" text NOT NULL,
	"source_amount" bigint NOT NULL,
	"target_amount" bigint NOT NULL,
	"fee" bigint NOT NULL,
	"fixed_side" text NOT NULL,
	"lock_duration" text NOT NULL,
	"used_by" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fx_settlements" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"state" text NOT NULL,
	"quote_id" text,
	"source_currency" text,
	"source_amount" bigint,
	"rate" text,
	"fee" bigint,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"destination" jsonb NOT NULL,
	"fails_with" text,
	"hold_id" text,
	"expected_paid_at" timestamp (3) with time zone NOT NULL,
	"converted_at" timestamp (3) with time zone,
	"paid_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"failure_code" text,
	"failure_reason" text,
	"reference" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "fx_conversions_merchant_id_idx" ON "fx_conversions" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "fx_quotes_merchant_id_idx" ON "fx_quotes" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "fx_settlements_merchant_id_idx" ON "fx_settlements" USING btree ("merchant_id","id");