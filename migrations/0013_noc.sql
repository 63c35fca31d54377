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
ALTER TABLE "transfers" ADD COLUMN "counterparty_id" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "noc_code" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "notifications_of_change" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "counterparties_merchant_id_idx" ON "counterparties" USING btree ("merchant_id","id");