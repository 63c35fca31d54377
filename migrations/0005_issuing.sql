CREATE TABLE "issuing_authorizations" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"card_id" text NOT NULL,
	"state" text NOT NULL,
	"amount" bigint NOT NULL,
	"amount_reversed" bigint NOT NULL,
	"amount_captured" bigint NOT NULL,
	"amount_refunded" bigint NOT NULL,
	"currency" text NOT NULL,
	"merchant_name" text NOT NULL,
	"merchant_mcc" text NOT NULL,
	"merchant_country" text NOT NULL,
	"decline_reason" text,
	"decline_interval" text,
	"network_response_code" text NOT NULL,
	"hold_id" text,
	"card_payment_id" text,
	"reference" text,
	"expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "virtual_cards" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"brand" text NOT NULL,
	"number" text NOT NULL,
	"cvc" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"cardholder_name" text NOT NULL,
	"state" text NOT NULL,
	"spending_controls" jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "issuing_authorizations_merchant_id_idx" ON "issuing_authorizations" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "issuing_authorizations_card_idx" ON "issuing_authorizations" USING btree ("card_id","created_at");--> statement-breakpoint
CREATE INDEX "virtual_cards_merchant_id_idx" ON "virtual_cards" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "virtual_cards_number_uq" ON "virtual_cards" USING btree ("number");