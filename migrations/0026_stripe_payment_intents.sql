CREATE TABLE "stripe_payment_intents" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"capture_method" text NOT NULL,
	"payment_method" text,
	"card_payment_id" text,
	"attempt_payment_method" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"receipt_email" text,
	"return_url" text,
	"client_secret" text NOT NULL,
	"canceled_at" timestamp (3) with time zone,
	"cancellation_reason" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stripe_payment_intents_merchant_idx" ON "stripe_payment_intents" USING btree ("merchant_id","id");