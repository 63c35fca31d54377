CREATE TABLE "stripe_checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"collection_id" text NOT NULL,
	"mode" text NOT NULL,
	"amount_total" bigint NOT NULL,
	"currency" text NOT NULL,
	"line_items" jsonb NOT NULL,
	"success_url" text,
	"cancel_url" text,
	"customer_id" text,
	"customer_email" text,
	"client_reference_id" text,
	"metadata" jsonb NOT NULL,
	"status" text NOT NULL,
	"payment_intent_id" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_customers" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"email" text,
	"name" text,
	"phone" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"default_payment_method" text,
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"type" text NOT NULL,
	"source_event_id" text,
	"data" jsonb NOT NULL,
	"api_version" text,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_payment_methods" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"customer_id" text,
	"number" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"cvc" text NOT NULL,
	"funding" text NOT NULL,
	"billing_details" jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_test_clocks" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"name" text,
	"deleted" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "stripe_payment_intents" ADD COLUMN "customer_id" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "format" text DEFAULT 'sandbank' NOT NULL;--> statement-breakpoint
CREATE INDEX "stripe_checkout_sessions_merchant_idx" ON "stripe_checkout_sessions" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "stripe_checkout_sessions_collection_idx" ON "stripe_checkout_sessions" USING btree ("collection_id");--> statement-breakpoint
CREATE INDEX "stripe_customers_merchant_idx" ON "stripe_customers" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "stripe_customers_email_idx" ON "stripe_customers" USING btree ("merchant_id","email");--> statement-breakpoint
CREATE INDEX "stripe_events_merchant_idx" ON "stripe_events" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "stripe_events_type_idx" ON "stripe_events" USING btree ("merchant_id","type","id");--> statement-breakpoint
CREATE INDEX "stripe_payment_methods_merchant_idx" ON "stripe_payment_methods" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "stripe_payment_methods_customer_idx" ON "stripe_payment_methods" USING btree ("customer_id","id");--> statement-breakpoint
CREATE INDEX "stripe_test_clocks_merchant_idx" ON "stripe_test_clocks" USING btree ("merchant_id","id");