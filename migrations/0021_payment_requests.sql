CREATE TABLE "payment_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"direction" text NOT NULL,
	"rail" text NOT NULL,
	"state" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"counterparty_name" text NOT NULL,
	"routing_number" text NOT NULL,
	"account_last4" text NOT NULL,
	"pay_to_account" text,
	"behavior" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"responded_at" timestamp (3) with time zone,
	"rejection_code" text,
	"rejection_reason" text,
	"paid_at" timestamp (3) with time zone,
	"transfer_id" text,
	"reference" text,
	"description" text,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "payment_requests_merchant_id_idx" ON "payment_requests" USING btree ("merchant_id","id");