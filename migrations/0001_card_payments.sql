CREATE TABLE "card_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"collection_id" text,
	"state" text NOT NULL,
	"amount" bigint NOT NULL,
	"amount_captured" bigint NOT NULL,
	"amount_refunded" bigint NOT NULL,
	"currency" text NOT NULL,
	"capture_on_authorize" boolean NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"network_response_code" text,
	"decline_code" text,
	"failure_message" text,
	"three_d_secure" text,
	"challenge_result" jsonb,
	"refund_behavior" text NOT NULL,
	"reference" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"authorized_at" timestamp (3) with time zone,
	"authorization_expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "card_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"card_payment_id" text NOT NULL,
	"state" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text,
	"failure_reason" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "card_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"number" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"cvc" text NOT NULL,
	"name" text,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "card_refunds" ADD CONSTRAINT "card_refunds_card_payment_id_card_payments_id_fk" FOREIGN KEY ("card_payment_id") REFERENCES "public"."card_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "card_payments_merchant_id_idx" ON "card_payments" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "card_payments_collection_idx" ON "card_payments" USING btree ("collection_id");--> statement-breakpoint
CREATE INDEX "card_refunds_payment_idx" ON "card_refunds" USING btree ("card_payment_id","id");